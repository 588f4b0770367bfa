//! grep with the pure-Python backend's exact rules: files read whole (over the size cap:
//! skipped as large), a NUL byte in the first 8 KiB marks a binary file, invalid UTF-8
//! read as U+FFFD, a line matches when the regex matches within it. Files are searched
//! in parallel; the answer is assembled in walk order afterwards, so `limit` and the
//! counters stop exactly where a sequential search would.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};

use crate::walk::{slash_path, threads, walk_parallel, walk_sorted, Kind};

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
}

/// The line regex: RE2/Rust syntax, lines end at `\n` (a regex that names `\n` is refused).
pub fn line_matcher(pattern: &str) -> Result<RegexMatcher, String> {
    RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| e.to_string())
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

pub fn read_file(path: &Path, max_bytes: u64) -> Option<Result<Vec<u8>, ()>> {
    let mut file = File::open(path).ok()?;
    let size = file.metadata().ok()?.len();
    if size > max_bytes {
        return Some(Err(()));
    }
    let mut data = Vec::with_capacity(size as usize + 1);
    (&mut file)
        .take(max_bytes + 1)
        .read_to_end(&mut data)
        .ok()?;
    if data.len() as u64 > max_bytes {
        return Some(Err(()));
    }
    Some(Ok(data))
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

fn line_text(bytes: &[u8]) -> String {
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
    let data = match read_file(path, max_bytes) {
        None => return Outcome::Unreadable,
        Some(Err(())) => return Outcome::Large,
        Some(Ok(data)) => data,
    };
    let sniff = &data[..data.len().min(BINARY_SNIFF_BYTES)];
    if memchr::memchr(0, sniff).is_some() {
        return Outcome::Binary;
    }
    scan(&query.matcher, &utf8(data), query.mode, query.limit)
}

fn wanted(query: &Query, rel: &str, name: &str) -> bool {
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

/// Searches the wanted files under `root`: one thread walks in the pure-Python walker's
/// order, several search, and this thread takes their outcomes in walk order, so the
/// answer stops exactly where a sequential search would and the rest is never read.
/// `on_file` sees each file with a match, in order, as soon as its turn comes.
pub fn search_tree(
    query: &Query,
    root: &Path,
    cancel: &AtomicBool,
    on_file: &(dyn Fn(&str, usize) + Sync),
) -> Answer {
    let stop = AtomicBool::new(false);
    let stopped = || stop.load(Ordering::Relaxed) || cancel.load(Ordering::Relaxed);
    let (jobs, job_queue) = mpsc::sync_channel::<(usize, PathBuf, PathBuf)>(256);
    let job_queue = Mutex::new(job_queue);
    let (results, outcomes) = mpsc::channel::<(usize, PathBuf, Outcome)>();
    let mut assembler = Assembler::new(query, root);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut index = 0;
            walk_sorted(root, |entry, path| {
                if stopped() {
                    return false;
                }
                let rel = entry.rel_str();
                if entry.kind != Kind::File || !wanted(query, &rel, &entry.name()) {
                    return true;
                }
                index += 1;
                jobs.send((index - 1, entry.rel, path.to_path_buf()))
                    .is_ok()
            });
            drop(jobs);
        });
        for _ in 0..threads() {
            let results = results.clone();
            let (job_queue, stopped) = (&job_queue, &stopped);
            scope.spawn(move || loop {
                let job = job_queue.lock().unwrap().recv();
                let Ok((index, rel, path)) = job else { break };
                if stopped() {
                    continue; // drain the queue so the walker is never left blocked
                }
                let outcome = search_file(query, &path, MAX_FILE_BYTES);
                if results.send((index, rel, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(results);
        let mut waiting = BTreeMap::new();
        let mut next = 0;
        for (index, rel, outcome) in outcomes.iter() {
            waiting.insert(index, (rel, outcome));
            while let Some((rel, outcome)) = waiting.remove(&next) {
                next += 1;
                if assembler.done {
                    continue;
                }
                if let Outcome::Text { count, .. } = outcome {
                    if count > 0 {
                        on_file(&slash_path(&rel), count);
                    }
                }
                if assembler.push(rel, outcome) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    assembler.answer
}

/// Limits from which a grep searches the whole tree in parallel and orders the outcomes
/// afterwards (faster when every file must be searched anyway); below it, `search_tree`
/// walks in order and stops at the limit.
pub const FULL_SCAN_LIMIT: usize = 10_000;

/// Every wanted file under `root`, walked and searched in parallel; the outcomes sorted
/// into walk order and assembled. `on_file` sees files with a match as they are found.
pub fn search_all(
    query: &Query,
    root: &Path,
    cancel: &AtomicBool,
    on_file: &(dyn Fn(&str, usize) + Sync),
) -> Answer {
    let found = Mutex::new(Vec::new());
    walk_parallel(root, cancel, |entry, path| {
        let rel = entry.rel_str();
        if entry.kind != Kind::File || !wanted(query, &rel, &entry.name()) {
            return true;
        }
        let outcome = search_file(query, path, MAX_FILE_BYTES);
        if let Outcome::Text { count, .. } = outcome {
            if count > 0 {
                on_file(&rel, count);
            }
        }
        found.lock().unwrap().push((entry.rel, outcome));
        true
    });
    let mut found = found.into_inner().unwrap();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    assemble(query, root, found)
}

/// The answer of a sequential search over `outcomes` (in walk order); `dir` is the
/// folder the relative paths start from (to read context lines).
pub fn assemble(query: &Query, dir: &Path, outcomes: Vec<(PathBuf, Outcome)>) -> Answer {
    let mut assembler = Assembler::new(query, dir);
    for (rel, outcome) in outcomes {
        if assembler.push(rel, outcome) {
            break;
        }
    }
    assembler.answer
}

/// The state of one grep as files come in, in walk order (`_GrepRun` of the Python backend).
struct Assembler<'a> {
    query: &'a Query,
    dir: &'a Path,
    answer: Answer,
    done: bool,
}

impl<'a> Assembler<'a> {
    fn new(query: &'a Query, dir: &'a Path) -> Self {
        Self {
            query,
            dir,
            answer: Answer::default(),
            done: false,
        }
    }

    /// Takes the next file's outcome; true once the search is over (the limit passed).
    fn push(&mut self, rel: PathBuf, outcome: Outcome) -> bool {
        self.done = self.take(rel, outcome);
        self.done
    }

    fn take(&mut self, rel: PathBuf, outcome: Outcome) -> bool {
        let (query, answer) = (self.query, &mut self.answer);
        let (hits, count, more) = match outcome {
            Outcome::Unreadable => return false,
            Outcome::Large => {
                answer.skipped_large += 1;
                return false;
            }
            Outcome::Binary => {
                answer.skipped_binary += 1;
                return false;
            }
            Outcome::Text { hits, count, more } => (hits, count, more),
        };
        answer.files_searched += 1;
        let path = slash_path(&rel);
        if query.mode != Mode::Content {
            if count == 0 {
                return false;
            }
            if answer.files_matched >= query.limit {
                answer.truncated = true;
                return true;
            }
            answer.matches += count;
            answer.files_matched += 1;
            if query.mode == Mode::Files {
                answer.files.push(path);
            } else {
                answer.counts.push((path, count));
            }
            return false;
        }
        let left = query.limit - answer.matches;
        let (taken, truncated) = if hits.len() > left {
            (left, true)
        } else {
            (hits.len(), more)
        };
        answer.matches += taken;
        answer.truncated |= truncated;
        if taken > 0 {
            answer.files_matched += 1;
            let mut hits = hits;
            hits.truncate(taken);
            let file = self.dir.join(&rel);
            add_lines(&mut answer.lines, query.context, &file, &path, hits);
        }
        answer.truncated
    }
}

fn add_lines(
    out: &mut Vec<Line>,
    context: usize,
    file: &Path,
    path: &str,
    hits: Vec<(usize, String)>,
) {
    let text = match (context, read_file(file, MAX_EXPLICIT_FILE_BYTES)) {
        (0, _) | (_, None) | (_, Some(Err(()))) => None,
        (_, Some(Ok(data))) => Some(utf8(data)),
    };
    let Some(text) = text else {
        out.extend(hits.into_iter().map(|(line, text)| Line {
            path: path.to_string(),
            line,
            text,
            is_match: true,
        }));
        return;
    };
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.ends_with(b"\n") {
        lines.pop();
    }
    let matched: std::collections::BTreeSet<usize> = hits.iter().map(|h| h.0).collect();
    let mut shown = std::collections::BTreeSet::new();
    for &n in &matched {
        let last = (n + context).min(lines.len());
        shown.extend(n.saturating_sub(context).max(1)..=last);
    }
    for n in shown {
        out.push(Line {
            path: path.to_string(),
            line: n,
            text: line_text(lines[n - 1]),
            is_match: matched.contains(&n),
        });
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
    fn carriage_returns_are_dropped_from_line_text() {
        let matcher = line_matcher("a").unwrap();
        match scan(&matcher, b"a\r\n", Mode::Content, 10) {
            Outcome::Text { hits, .. } => assert_eq!(hits, vec![(1, "a".to_string())]),
            other => panic!("{other:?}"),
        }
    }
}
