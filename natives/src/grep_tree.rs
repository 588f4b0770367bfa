//! grep over a folder: which files, in what order, and where it stops. Below
//! `FULL_SCAN_LIMIT` one thread walks in the pure-Python walker's order while several
//! search and the outcomes are taken in order (`TreeSearch`), so the search ends at the
//! limit as a sequential one would; from it up, the whole tree is walked and searched in
//! parallel and ordered afterwards.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::grep::{
    line_text, read_file, search_file, utf8, wanted, Answer, Line, Mode, Outcome, Query,
    MAX_EXPLICIT_FILE_BYTES, MAX_FILE_BYTES,
};
use crate::pool;
use crate::walk::{slash_path, threads, walk_order, walk_parallel, walk_sorted, Kind};

/// What a file adds to the answer, handed on as soon as it is known (streaming):
/// its path, matching-line count and, in content mode, its lines (line, text, match).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub path: String,
    pub count: usize,
    pub lines: Vec<(usize, String, bool)>,
}

/// Called once per file searched with what it added (`None`: nothing, which lets a
/// listener keep time between hits); `None` when nobody listens (nothing is copied).
pub type OnHit<'a> = Option<&'a (dyn Fn(Option<Hit>) + Sync)>;

/// How far (in files) the walk may run ahead of the answer: little at first, since most
/// limited searches end within a few dozen files and every file walked or searched past
/// the end is time taken from the ones that count; more as the answer grows, up to
/// `MAX_AHEAD`, so a long search keeps every thread busy.
fn ahead(assembled: usize) -> usize {
    (16 + 2 * assembled).min(MAX_AHEAD)
}

const MAX_AHEAD: usize = 256;

/// The files the answer has taken so far, for the walker to keep within `ahead` of.
#[derive(Default)]
struct Progress {
    assembled: Mutex<usize>,
    moved: Condvar,
}

impl Progress {
    fn wait_for_room(&self, index: usize, stopped: &dyn Fn() -> bool) {
        let mut done = self.assembled.lock().unwrap();
        while index >= *done + ahead(*done) && !stopped() {
            // A timeout too, so a cancel (set by no one who notifies) is seen.
            done = self
                .moved
                .wait_timeout(done, Duration::from_millis(10))
                .unwrap()
                .0;
        }
    }

    fn advance(&self, assembled: usize) {
        *self.assembled.lock().unwrap() = assembled;
        self.moved.notify_one();
    }
}

/// What the walker and the searchers of one `TreeSearch` share.
struct Shared {
    query: Arc<Query>,
    root: PathBuf,
    cancel: Arc<AtomicBool>,
    /// Set once the answer is complete, or nobody waits for it: everyone stops.
    stop: AtomicBool,
    progress: Progress,
}

impl Shared {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.cancel.load(Ordering::Relaxed)
    }
}

/// A file to search: (its place in walk order, relative path, path).
type Job = (usize, PathBuf, PathBuf);
/// A file searched: (its place in walk order, relative path, what the search found).
type Found = (usize, PathBuf, Outcome);

/// An ordered grep over a folder, under way. One `pool` thread walks in the pure-Python
/// walker's order and several search; whoever holds this takes their outcomes in walk
/// order (`run`), so the answer stops exactly where a sequential search would and the
/// rest is never read. It may run for a while on one thread and on to its end on
/// another. The walker and searchers stop by themselves once the answer is complete or
/// this is dropped; nobody waits for them.
pub struct TreeSearch {
    shared: Arc<Shared>,
    found: mpsc::Receiver<Found>,
    waiting: BTreeMap<usize, (PathBuf, Outcome)>,
    next: usize,
    assembler: Assembler,
}

impl TreeSearch {
    pub fn start(query: Arc<Query>, root: &Path, cancel: Arc<AtomicBool>) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            query,
            root: root.to_path_buf(),
            cancel,
            stop: AtomicBool::new(false),
            progress: Progress::default(),
        });
        let (jobs, job_queue) = mpsc::sync_channel::<Job>(MAX_AHEAD);
        let job_queue = Arc::new(Mutex::new(job_queue));
        let (results, found) = mpsc::channel::<Found>();
        // Dropped on an error below, which stops whatever had started.
        let search = Self {
            shared: shared.clone(),
            found,
            waiting: BTreeMap::new(),
            next: 0,
            assembler: Assembler::default(),
        };
        let walker = shared.clone();
        pool::submit(Box::new(move || walk_jobs(&walker, jobs)))?;
        for _ in 0..threads() {
            let (shared, job_queue, results) = (shared.clone(), job_queue.clone(), results.clone());
            pool::submit(Box::new(move || search_jobs(&shared, &job_queue, &results)))?;
        }
        Ok(search)
    }

    /// Takes outcomes until the answer is complete (then returns it, once) or `until`
    /// passes (then None: call again, on this thread or another). `on_hit` sees what each
    /// file adds to the answer, in order, as soon as its turn comes.
    pub fn run(&mut self, until: Option<Instant>, on_hit: OnHit) -> Option<Answer> {
        let shared = self.shared.clone();
        let (query, root) = (&*shared.query, shared.root.as_path());
        while !self.assembler.done {
            let found = match until {
                None => self.found.recv().ok(),
                Some(until) => {
                    match self
                        .found
                        .recv_timeout(until.saturating_duration_since(Instant::now()))
                    {
                        Ok(found) => Some(found),
                        Err(RecvTimeoutError::Timeout) => return None,
                        Err(RecvTimeoutError::Disconnected) => None,
                    }
                }
            };
            let Some((index, rel, outcome)) = found else {
                break; // every file walked is searched
            };
            self.waiting.insert(index, (rel, outcome));
            let had = self.next;
            while let Some((rel, outcome)) = self.waiting.remove(&self.next) {
                self.next += 1;
                let before = self.assembler.sizes();
                self.assembler.push(query, root, rel, outcome);
                if let Some(on_hit) = on_hit {
                    on_hit(self.assembler.added_since(before));
                }
                if self.assembler.done {
                    break;
                }
            }
            if self.next != had {
                shared.progress.advance(self.next);
            }
        }
        self.stop();
        self.assembler.done = true;
        Some(std::mem::take(&mut self.assembler.answer))
    }

    fn stop(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.shared.progress.moved.notify_all();
    }
}

impl Drop for TreeSearch {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The walker of a `TreeSearch`: wanted files, in order, never more than `ahead` of the
/// answer.
fn walk_jobs(shared: &Shared, jobs: mpsc::SyncSender<Job>) {
    let query = &*shared.query;
    let stopped = || shared.stopped();
    let mut index = 0;
    walk_sorted(&shared.root, |entry, path| {
        if stopped() {
            return false;
        }
        let rel = entry.rel_str();
        if entry.kind != Kind::File || !wanted(query, &rel, &entry.name()) {
            return true;
        }
        shared.progress.wait_for_room(index, &stopped);
        index += 1;
        jobs.send((index - 1, entry.rel, path.to_path_buf()))
            .is_ok()
    });
}

/// A searcher of a `TreeSearch`: takes the walker's files until there are no more.
fn search_jobs(
    shared: &Shared,
    job_queue: &Mutex<mpsc::Receiver<Job>>,
    found: &mpsc::Sender<Found>,
) {
    loop {
        let job = job_queue.lock().unwrap().recv();
        let Ok((index, rel, path)) = job else { break };
        if shared.stopped() {
            continue; // drain the queue so the walker is never left blocked
        }
        let outcome = search_file(&shared.query, &path, MAX_FILE_BYTES);
        if found.send((index, rel, outcome)).is_err() {
            break;
        }
    }
}

/// The answer of an ordered grep over `root` (`TreeSearch`), on this thread.
pub fn search_tree(
    query: Arc<Query>,
    root: &Path,
    cancel: Arc<AtomicBool>,
    on_hit: OnHit,
) -> std::io::Result<Answer> {
    let mut search = TreeSearch::start(query, root, cancel)?;
    Ok(search.run(None, on_hit).unwrap_or_default())
}

/// Limits from which a grep searches the whole tree in parallel and orders the outcomes
/// afterwards (faster when every file must be searched anyway); below it, `search_tree`
/// walks in order and stops at the limit.
pub const FULL_SCAN_LIMIT: usize = 10_000;

/// Every wanted file under `root`, walked and searched in parallel; the outcomes sorted
/// into walk order and assembled. `on_hit` sees files with a match as they are found
/// (their matching lines, without context).
pub fn search_all(query: &Query, root: &Path, cancel: &AtomicBool, on_hit: OnHit) -> Answer {
    let found = Mutex::new(Vec::new());
    walk_parallel(root, cancel, |entry, path| {
        let rel = entry.rel_str();
        if entry.kind != Kind::File || !wanted(query, &rel, &entry.name()) {
            return true;
        }
        let outcome = search_file(query, path, MAX_FILE_BYTES);
        if let Some(on_hit) = on_hit {
            on_hit(match &outcome {
                Outcome::Text { hits, count, .. } if *count > 0 => Some(Hit {
                    path: rel,
                    count: *count,
                    lines: hits.iter().map(|(n, t)| (*n, t.clone(), true)).collect(),
                }),
                _ => None,
            });
        }
        found.lock().unwrap().push((entry.rel, outcome));
        true
    });
    let mut found = found.into_inner().unwrap();
    found.sort_unstable_by(|a, b| walk_order(&a.0, &b.0));
    assemble(query, root, found)
}

/// The answer of a sequential search over `outcomes` (in walk order); `dir` is the
/// folder the relative paths start from (to read context lines).
pub fn assemble(query: &Query, dir: &Path, outcomes: Vec<(PathBuf, Outcome)>) -> Answer {
    let mut assembler = Assembler::default();
    for (rel, outcome) in outcomes {
        if assembler.push(query, dir, rel, outcome) {
            break;
        }
    }
    assembler.answer
}

/// The state of one grep as files come in, in walk order (`_GrepRun` of the Python
/// backend); `dir` is the folder the files' relative paths start from.
#[derive(Default)]
struct Assembler {
    answer: Answer,
    done: bool,
}

impl Assembler {
    /// (lines, files, counts) of the answer so far.
    fn sizes(&self) -> (usize, usize, usize) {
        let a = &self.answer;
        (a.lines.len(), a.files.len(), a.counts.len())
    }

    /// What the answer gained since `sizes()` gave `before` (one file's worth).
    fn added_since(&self, before: (usize, usize, usize)) -> Option<Hit> {
        let a = &self.answer;
        if let Some((path, count)) = a.counts.get(before.2) {
            return Some(Hit {
                path: path.clone(),
                count: *count,
                lines: Vec::new(),
            });
        }
        if let Some(path) = a.files.get(before.1) {
            return Some(Hit {
                path: path.clone(),
                count: 1,
                lines: Vec::new(),
            });
        }
        let new = &a.lines[before.0..];
        let first = new.first()?;
        Some(Hit {
            path: first.path.clone(),
            count: new.iter().filter(|l| l.is_match).count(),
            lines: new
                .iter()
                .map(|l| (l.line, l.text.clone(), l.is_match))
                .collect(),
        })
    }

    /// Takes the next file's outcome; true once the search is over (the limit passed).
    fn push(&mut self, query: &Query, dir: &Path, rel: PathBuf, outcome: Outcome) -> bool {
        self.done = self.take(query, dir, rel, outcome);
        self.done
    }

    fn take(&mut self, query: &Query, dir: &Path, rel: PathBuf, outcome: Outcome) -> bool {
        let answer = &mut self.answer;
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
            let file = dir.join(&rel);
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
    use crate::grep::line_matcher;
    use std::fs;

    #[test]
    fn the_walk_stays_within_reach_of_the_answer() {
        let progress = Progress::default();
        let never = || false;
        let reached = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                progress.wait_for_room(ahead(0), &never); // one past what it may run ahead
                reached.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(
                !reached.load(Ordering::SeqCst),
                "the walker ran too far ahead"
            );
            progress.advance(1);
        });
        assert!(reached.load(Ordering::SeqCst));
        assert_eq!(ahead(10_000), MAX_AHEAD);
    }

    fn query(limit: usize, mode: Mode) -> Arc<Query> {
        Arc::new(Query {
            matcher: line_matcher("hit").unwrap(),
            mode,
            limit,
            context: 0,
            glob: None,
            extensions: None,
            ascii_literal: true,
        })
    }

    fn tree(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("omp-natives-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for i in 0..50 {
            let dir = root.join(format!("d{}", i % 5));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(format!("f{i:02}.txt")), "hit\nmiss\nhit\nhit\n").unwrap();
        }
        root
    }

    #[test]
    fn the_ordered_search_stops_where_a_sequential_one_would() {
        let root = tree("ordered");
        let never = Arc::new(AtomicBool::new(false));
        let answer = search_tree(query(10, Mode::Content), &root, never.clone(), None).unwrap();
        assert_eq!((answer.matches, answer.files_searched), (10, 4));
        assert!(answer.truncated);
        assert_eq!(answer.lines[0].path, "d0/f00.txt");
        assert_eq!(answer.lines[9].path, "d0/f15.txt");
        let all = search_all(&query(10, Mode::Content), &root, &never, None);
        assert_eq!(all.lines, answer.lines);
        assert_eq!(all.files_searched, answer.files_searched);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn a_search_run_for_a_while_here_goes_on_to_the_same_answer_on_another_thread() {
        let root = tree("resumed");
        let never = Arc::new(AtomicBool::new(false));
        let whole = search_tree(query(10, Mode::Content), &root, never.clone(), None).unwrap();
        let mut search = TreeSearch::start(query(10, Mode::Content), &root, never).unwrap();
        let answer = match search.run(Some(Instant::now()), None) {
            Some(answer) => answer, // over already: nothing left to hand on
            None => std::thread::spawn(move || search.run(None, None))
                .join()
                .unwrap()
                .unwrap(),
        };
        assert_eq!(answer.lines, whole.lines);
        assert_eq!((answer.matches, answer.files_searched), (10, 4));
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn hits_stream_in_walk_order_and_add_up_to_the_answer() {
        let root = tree("hits");
        let never = Arc::new(AtomicBool::new(false));
        let seen = Mutex::new(Vec::new());
        let on_hit = |hit: Option<Hit>| seen.lock().unwrap().extend(hit);
        let answer = search_tree(query(10, Mode::Content), &root, never, Some(&on_hit)).unwrap();
        let streamed: Vec<(String, usize)> = seen
            .into_inner()
            .unwrap()
            .into_iter()
            .flat_map(|h| h.lines.into_iter().map(move |l| (h.path.clone(), l.0)))
            .collect();
        let lines: Vec<(String, usize)> = answer
            .lines
            .iter()
            .map(|l| (l.path.clone(), l.line))
            .collect();
        assert_eq!(streamed, lines);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn files_mode_stops_at_the_file_limit() {
        let root = tree("files");
        let never = Arc::new(AtomicBool::new(false));
        let answer = search_tree(query(3, Mode::Files), &root, never, None).unwrap();
        assert_eq!(answer.files, ["d0/f00.txt", "d0/f05.txt", "d0/f10.txt"]);
        assert!(answer.truncated && answer.files_searched == 4);
        fs::remove_dir_all(root).unwrap();
    }
}
