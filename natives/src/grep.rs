//! grep of one file with the pure-Python backend's exact rules: files read whole (over
//! the size cap: skipped as large), a NUL byte in the first 8 KiB marks a binary file,
//! invalid UTF-8 read as U+FFFD, a line matches when the regex matches within it.

use std::cell::RefCell;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
pub const MAX_EXPLICIT_FILE_BYTES: u64 = 64 * 1024 * 1024;
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Content,
    Files,
    Count,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "content" => Some(Mode::Content),
            "files" => Some(Mode::Files),
            "count" => Some(Mode::Count),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Content => "content",
            Mode::Files => "files",
            Mode::Count => "count",
        }
    }
}

pub struct Query {
    pub matcher: RegexMatcher,
    pub mode: Mode,
    pub limit: usize,
    pub context: usize,
    /// Fully anchored regex a file's relative path (`/` in the glob) or name must match.
    pub glob: Option<(RegexMatcher, bool)>,
    /// Lower-case name endings of the file type asked for.
    pub extensions: Option<Vec<String>>,
    /// The pattern is a plain ASCII literal (`ascii_literal`): files are searched as
    /// read, with no UTF-8 check first.
    pub ascii_literal: bool,
}

/// The line regex: RE2/Rust syntax, lines end at `\n` (a regex that names `\n` is refused).
pub fn line_matcher(pattern: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// Whether `pattern` is a plain ASCII literal. Its matches, and the lines they sit in,
/// are the same in a file's bytes as in its text read with invalid UTF-8 replaced (no
/// byte of an ASCII match, nor a line end, is ever part of an invalid sequence), so such
/// a search skips the UTF-8 check of every file.
pub fn ascii_literal(pattern: &str) -> bool {
    match regex_syntax::parse(pattern).map(|hir| hir.into_kind()) {
        Ok(regex_syntax::hir::HirKind::Literal(literal)) => literal.0.is_ascii(),
        _ => false,
    }
}

/// A regex that must match a whole path (a translated glob).
pub fn path_matcher(pattern: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .build(&format!(r"\A(?:{pattern})\z"))
        .map_err(|e| e.to_string())
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub path: String,
    pub line: usize,
    pub text: String,
    pub is_match: bool,
}

#[derive(Debug, Default)]
pub struct Answer {
    pub lines: Vec<Line>,
    pub files: Vec<String>,
    pub counts: Vec<(String, usize)>,
    pub matches: usize,
    pub files_matched: usize,
    pub files_searched: usize,
    pub truncated: bool,
    pub skipped_binary: usize,
    pub skipped_large: usize,
}

#[derive(Debug)]
pub enum Outcome {
    Unreadable,
    Large,
    Binary,
    Text {
        /// (line number, line text) of matching lines, at most `limit` in content mode.
        hits: Vec<(usize, String)>,
        count: usize,
        more: bool,
    },
}

/// Opened without blocking: a named pipe in the tree reads as empty (or unreadable)
/// instead of waiting for a writer forever.
fn open(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

pub fn read_file(path: &Path, max_bytes: u64) -> Option<Result<Vec<u8>, ()>> {
    let mut room = Vec::new();
    read_into(path, max_bytes, &mut room).map(|read| {
        read.map(|len| {
            room.truncate(len);
            room
        })
    })
}

/// Reads the file into the start of `room` (grown, zeroed, as needed; never shrunk, so a
/// thread's next file reuses it): its length, Err when it is over `max_bytes`, None when
/// it cannot be read. One `read` per file as a rule: asked for one byte more than its
/// size, a file that gives exactly its size is at its end (a file that changes as it is
/// read is read until `read` gives nothing).
pub fn read_into(path: &Path, max_bytes: u64, room: &mut Vec<u8>) -> Option<Result<usize, ()>> {
    let mut file = open(path).ok()?;
    let size = file.metadata().ok()?.len();
    if size > max_bytes {
        return Some(Err(()));
    }
    let cap = max_bytes.saturating_add(1).min(usize::MAX as u64) as usize;
    if room.len() < size as usize + 1 {
        room.resize(size as usize + 1, 0);
    }
    let mut len = 0;
    loop {
        if len == room.len() {
            if len >= cap {
                return Some(Err(()));
            }
            room.resize(room.len().saturating_mul(2).clamp(len + 1, cap), 0);
        }
        match file.read(&mut room[len..]) {
            Ok(0) => break,
            Ok(n) => {
                len += n;
                if len as u64 == size && len < room.len() {
                    break; // a short read ending exactly at the size: the end
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(if len as u64 > max_bytes {
        Err(())
    } else {
        Ok(len)
    })
}

/// Read buffers of threads that have ended, for the next ones: a parallel walk's threads
/// live for one search, and a fresh buffer costs the kernel a zeroed page for every 4 KiB
/// it grows by (about 7% of a whole-tree grep's CPU). At most one per core is kept.
static SPARE_BUFFERS: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());

/// A thread's read buffer: taken from the spares when the thread first reads a file,
/// given back when the thread ends.
struct ReadBuffer(Vec<u8>);

impl ReadBuffer {
    fn take() -> Self {
        Self(
            SPARE_BUFFERS
                .lock()
                .map(|mut spare| spare.pop())
                .ok()
                .flatten()
                .unwrap_or_default(),
        )
    }
}

impl Drop for ReadBuffer {
    fn drop(&mut self) {
        let room = std::mem::take(&mut self.0);
        if let Ok(mut spare) = SPARE_BUFFERS.lock() {
            if !room.is_empty() && spare.len() < crate::walk::threads() {
                spare.push(room);
            }
        }
    }
}

thread_local! {
    /// Each searching thread reads its files into one buffer (no allocation per file).
    static BUFFER: RefCell<ReadBuffer> = RefCell::new(ReadBuffer::take());
}

/// Above this a thread's buffer is freed after the file (one large file read at times
/// should not pin its size for the thread's life).
const KEPT_BUFFER_BYTES: usize = 8 * 1024 * 1024;

/// `work` with this thread's read buffer (see `read_into`), which stays with the thread,
/// then with the next thread, unless it grew past `KEPT_BUFFER_BYTES`.
pub fn with_read_buffer<R>(work: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    BUFFER.with_borrow_mut(|buffer| {
        let out = work(&mut buffer.0);
        if buffer.0.len() > KEPT_BUFFER_BYTES {
            buffer.0 = Vec::new();
        }
        out
    })
}

/// Invalid UTF-8 replaced by U+FFFD, as Python's `decode("utf-8", "replace")` does.
pub fn utf8(data: Vec<u8>) -> Vec<u8> {
    match String::from_utf8(data) {
        Ok(text) => text.into_bytes(),
        Err(err) => String::from_utf8_lossy(err.as_bytes())
            .into_owned()
            .into_bytes(),
    }
}

pub fn line_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.strip_suffix('\r').unwrap_or(&text).to_string()
}

fn find(matcher: &RegexMatcher, text: &[u8], pos: usize) -> Option<(usize, usize)> {
    matcher
        .find_at(text, pos)
        .ok()
        .flatten()
        .map(|m| (m.start(), m.end()))
}

/// The matching lines of `text`: `scan.scan` of the Python backend, line for line.
pub fn scan(matcher: &RegexMatcher, text: &[u8], mode: Mode, limit: usize) -> Outcome {
    let mut hits = Vec::new();
    let (mut count, mut line_no, mut counted_to, mut pos) = (0usize, 1usize, 0usize, 0usize);
    let size = text.len();
    while pos <= size {
        let Some((start_at, end_at)) = find(matcher, text, pos) else {
            break;
        };
        let start = memchr::memrchr(b'\n', &text[..start_at]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &text[start_at..]).map_or(size, |i| start_at + i);
        if end_at > end && find(matcher, &text[..end], start).is_none() {
            pos = end + 1;
            continue;
        }
        if mode == Mode::Content {
            if count >= limit {
                return Outcome::Text {
                    hits,
                    count,
                    more: true,
                };
            }
            line_no += memchr::memchr_iter(b'\n', &text[counted_to..start]).count();
            counted_to = start;
            hits.push((line_no, line_text(&text[start..end])));
        }
        count += 1;
        if mode == Mode::Files {
            break;
        }
        pos = end + 1;
    }
    Outcome::Text {
        hits,
        count,
        more: false,
    }
}

pub fn search_file(query: &Query, path: &Path, max_bytes: u64) -> Outcome {
    with_read_buffer(|room| match read_into(path, max_bytes, room) {
        None => Outcome::Unreadable,
        Some(Err(())) => Outcome::Large,
        Some(Ok(len)) => search_bytes(query, &room[..len]),
    })
}

fn search_bytes(query: &Query, data: &[u8]) -> Outcome {
    let sniff = &data[..data.len().min(BINARY_SNIFF_BYTES)];
    if memchr::memchr(0, sniff).is_some() {
        return Outcome::Binary;
    }
    if query.ascii_literal {
        return scan(&query.matcher, data, query.mode, query.limit);
    }
    match std::str::from_utf8(data) {
        Ok(_) => scan(&query.matcher, data, query.mode, query.limit),
        Err(_) => {
            let text = String::from_utf8_lossy(data);
            scan(&query.matcher, text.as_bytes(), query.mode, query.limit)
        }
    }
}

pub fn wanted(query: &Query, rel: &str, name: &str) -> bool {
    if let Some((glob, whole_path)) = &query.glob {
        let subject = if *whole_path { rel } else { name };
        if !glob.is_match(subject.as_bytes()).unwrap_or(false) {
            return false;
        }
    }
    match &query.extensions {
        Some(exts) => {
            let lower = name.to_lowercase();
            exts.iter().any(|e| lower.ends_with(e.as_str()))
        }
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pattern: &str, text: &str, mode: Mode, limit: usize) -> (Vec<usize>, usize, bool) {
        let matcher = line_matcher(pattern).unwrap();
        match scan(&matcher, text.as_bytes(), mode, limit) {
            Outcome::Text { hits, count, more } => {
                (hits.into_iter().map(|h| h.0).collect(), count, more)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn scan_reports_matching_lines_once_each() {
        assert_eq!(
            lines("b", "ab\nbb\nc\nb", Mode::Content, 10),
            (vec![1, 2, 4], 3, false)
        );
    }

    #[test]
    fn scan_stops_at_the_limit_and_says_more_exist() {
        assert_eq!(
            lines("x", "x\nx\nx\n", Mode::Content, 2),
            (vec![1, 2], 2, true)
        );
    }

    #[test]
    fn an_empty_match_also_counts_the_empty_end_after_a_final_newline() {
        // Python's scan sees a line after the last "\n"; so does this one.
        assert_eq!(
            lines("(?m:^$)", "a\n\nb\n", Mode::Content, 10),
            (vec![2, 4], 2, false)
        );
    }

    #[test]
    fn files_mode_counts_one_and_count_mode_counts_lines() {
        assert_eq!(lines("a", "a\na\n", Mode::Files, 10).1, 1);
        assert_eq!(lines("a", "a\na\n", Mode::Count, 10).1, 2);
    }

    #[test]
    fn a_regex_naming_the_line_end_is_refused() {
        assert!(line_matcher(r"a\nb").is_err());
    }

    #[test]
    fn read_into_reuses_its_room_and_honours_the_cap() {
        let dir = std::env::temp_dir().join(format!("omp-natives-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (big, small) = (dir.join("big"), dir.join("small"));
        std::fs::write(&big, vec![b'x'; 100_000]).unwrap();
        std::fs::write(&small, b"abc").unwrap();
        let mut room = Vec::new();
        assert_eq!(read_into(&big, 1 << 20, &mut room), Some(Ok(100_000)));
        assert_eq!(read_into(&small, 1 << 20, &mut room), Some(Ok(3)));
        assert_eq!(&room[..3], b"abc");
        assert!(room.len() > 100_000); // kept for the next file
        assert_eq!(read_into(&big, 99_999, &mut room), Some(Err(())));
        assert_eq!(read_into(&dir.join("missing"), 10, &mut room), None);
        assert_eq!(read_file(&small, 10), Some(Ok(b"abc".to_vec())));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_whose_size_says_nothing_is_read_to_its_end() {
        // /proc files have size 0 but content: read until read gives nothing.
        let mut room = Vec::new();
        let len = read_into(Path::new("/proc/self/status"), 1 << 20, &mut room)
            .unwrap()
            .unwrap();
        assert!(len > 0 && room[..len].starts_with(b"Name:"));
    }

    #[test]
    fn only_plain_ascii_literals_skip_the_utf8_check() {
        assert!(ascii_literal(r"def __init__"));
        assert!(ascii_literal(r"(?m:a\.b)"));
        assert!(!ascii_literal(r"caf\x{e9}"));
        assert!(!ascii_literal(r"a.b"));
        assert!(!ascii_literal(r"(?i:ab)"));
        assert!(!ascii_literal(r"a|b"));
        assert!(!ascii_literal(r"("));
    }

    #[test]
    fn an_ascii_literal_finds_the_same_lines_in_invalid_utf8() {
        let text = b"caf\xe9 needle\n\xff\xfe\nneedle \xe2\x82\n";
        let (pattern, mode) = ("needle", Mode::Content);
        let matcher = line_matcher(pattern).unwrap();
        let raw = scan(&matcher, text, mode, 10);
        let lossy = scan(&matcher, &utf8(text.to_vec()), mode, 10);
        assert_eq!(format!("{raw:?}"), format!("{lossy:?}"));
    }

    #[test]
    fn carriage_returns_are_dropped_from_line_text() {
        let matcher = line_matcher("a").unwrap();
        match scan(&matcher, b"a\r\n", Mode::Content, 10) {
            Outcome::Text { hits, .. } => assert_eq!(hits, vec![(1, "a".to_string())]),
            other => panic!("{other:?}"),
        }
    }
}
