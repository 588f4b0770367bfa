//! `omp_natives._native`: the compiled half of the omp-natives plugin. Every function
//! releases the GIL while it works; the long ones take a `CancelToken` checked between
//! files. The plugin module (`omp_natives.plugin`) decides what to ask and when.

pub mod background;
pub mod find;
pub mod fuzzy;
pub mod grep;
pub mod grep_tree;
pub mod pool;
pub mod text;
pub mod tree;
pub mod walk;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::background::Outcome;
use crate::grep::{Mode, Query};

/// Search threads allocate what others free; mimalloc's per-thread heaps take no lock
/// for that (see Cargo.toml).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// When the first matches are handed to `on_batch`: a search over before then sends
/// none (its answer follows at once), a longer one sends what it has found.
const FIRST_BATCH_AFTER: Duration = Duration::from_millis(10);
/// How long later matches may wait before they are handed to `on_batch`.
const BATCH_INTERVAL: Duration = Duration::from_millis(20);
const BATCH_SIZE: usize = 256;

/// Set from any thread (`cancel()`) to stop a running search between two files.
#[pyclass(frozen)]
#[derive(Clone, Default)]
struct CancelToken {
    flag: Arc<AtomicBool>,
}

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    #[getter]
    fn cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

fn token_flag(cancel: Option<&CancelToken>) -> Arc<AtomicBool> {
    cancel.map(|c| c.flag.clone()).unwrap_or_default()
}

fn glob_matcher(glob: Option<&str>) -> PyResult<Option<grep_regex::RegexMatcher>> {
    glob.map(|g| grep::path_matcher(g).map_err(PyValueError::new_err))
        .transpose()
}

fn grep_query(
    pattern: &str,
    mode: &str,
    limit: usize,
    context: usize,
    glob: Option<&str>,
    glob_path: bool,
    extensions: Option<Vec<String>>,
) -> PyResult<Query> {
    let mode = Mode::parse(mode).ok_or_else(|| PyValueError::new_err("unknown output mode"))?;
    let matcher = grep::line_matcher(pattern).map_err(PyValueError::new_err)?;
    let ascii_literal = grep::ascii_literal(pattern);
    let glob = glob_matcher(glob)?.map(|m| (m, glob_path));
    Ok(Query {
        matcher,
        mode,
        limit: limit.max(1),
        context,
        glob,
        extensions,
        ascii_literal,
    })
}

/// The search itself, without the GIL: (the folder paths are relative to, the answer).
fn run_grep(
    query: Arc<Query>,
    target: &Path,
    flag: Arc<AtomicBool>,
    batcher: Option<&Batcher>,
) -> std::io::Result<(PathBuf, grep::Answer)> {
    if !target.is_dir() {
        let dir = target.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = PathBuf::from(target.file_name().unwrap_or_default());
        let outcome = grep::search_file(&query, target, grep::MAX_EXPLICIT_FILE_BYTES);
        let answer = grep_tree::assemble(&query, &dir, vec![(name, outcome)]);
        return Ok((dir, answer));
    }
    let answer = listening(batcher, move |on_hit| {
        if query.limit >= grep_tree::FULL_SCAN_LIMIT {
            Ok(grep_tree::search_all(&query, target, &flag, on_hit))
        } else {
            grep_tree::search_tree(query, target, flag, on_hit)
        }
    })?;
    Ok((target.to_path_buf(), answer))
}

fn search_error(err: std::io::Error) -> PyErr {
    PyValueError::new_err(format!("cannot start a search thread: {err}"))
}

/// grep under `target` (a folder, or one file). `pattern` and `glob` are regexes in
/// Rust/RE2 syntax (the plugin translates Python's); `glob_path`: the glob matches the
/// relative path rather than the name. Raises ValueError for a regex it cannot run.
/// `on_batch(list[tuple[str, int, list[tuple[int, str, bool]]]])` receives, as the
/// search goes, what files add to the answer: (path, matching lines, lines); what was
/// found in the first 10 ms, then at most every 20 ms (a hit after a quiet spell at
/// once); what is found in the last moments comes with the answer only. `line_type(path, line, text, match)` makes each
/// line of the answer (default: a dict).
#[pyfunction]
#[pyo3(name = "grep", signature = (target, pattern, mode="content", limit=100, context=0, glob=None,
    glob_path=false, extensions=None, cancel=None, on_batch=None, line_type=None))]
#[allow(clippy::too_many_arguments)]
fn py_grep<'py>(
    py: Python<'py>,
    target: PathBuf,
    pattern: &str,
    mode: &str,
    limit: usize,
    context: usize,
    glob: Option<&str>,
    glob_path: bool,
    extensions: Option<Vec<String>>,
    cancel: Option<&CancelToken>,
    on_batch: Option<Py<PyAny>>,
    line_type: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let query = Arc::new(grep_query(
        pattern, mode, limit, context, glob, glob_path, extensions,
    )?);
    let flag = token_flag(cancel);
    let batcher = on_batch.map(Batcher::new);
    let (dir, answer) = py
        .detach(|| run_grep(query.clone(), &target, flag, batcher.as_ref()))
        .map_err(search_error)?;
    answer_dict(py, &dir, query.mode, answer, line_type.as_ref())
}

/// `grep` on a thread of its own (one of the module's, kept between searches: see
/// `pool`): returns a `GrepSearch` at once. An ordered search over a folder is first run
/// on this thread for up to `inline_for` seconds (without the GIL), and is over when
/// this returns if it ended by then, which spares a short search the hand-over to that
/// thread and back. A bad regex raises ValueError here, before anything starts. The
/// searching thread takes the GIL only for `on_batch`.
#[pyfunction]
#[pyo3(signature = (target, pattern, mode="content", limit=100, context=0, glob=None,
    glob_path=false, extensions=None, cancel=None, on_batch=None, inline_for=0.0))]
#[allow(clippy::too_many_arguments)]
fn grep_start(
    py: Python<'_>,
    target: PathBuf,
    pattern: &str,
    mode: &str,
    limit: usize,
    context: usize,
    glob: Option<&str>,
    glob_path: bool,
    extensions: Option<Vec<String>>,
    cancel: Option<&CancelToken>,
    on_batch: Option<Py<PyAny>>,
    inline_for: f64,
) -> PyResult<GrepSearch> {
    let query = Arc::new(grep_query(
        pattern, mode, limit, context, glob, glob_path, extensions,
    )?);
    let flag = token_flag(cancel);
    let outcome = Arc::new(Outcome::new());
    let search = GrepSearch {
        outcome: outcome.clone(),
        mode: query.mode,
    };
    let batcher = on_batch.map(Batcher::new);
    if inline_for > 0.0 && target.is_dir() && query.limit < grep_tree::FULL_SCAN_LIMIT {
        let until = Instant::now() + Duration::from_secs_f64(inline_for);
        let mut tree = grep_tree::TreeSearch::start(query, &target, flag).map_err(search_error)?;
        let over =
            py.detach(|| listening(batcher.as_ref(), |on_hit| tree.run(Some(until), on_hit)));
        if let Some(answer) = over {
            outcome.finish((target, answer));
            return Ok(search);
        }
        pool::submit(Box::new(move || {
            let answer = listening(batcher.as_ref(), |on_hit| tree.run(None, on_hit));
            outcome.finish((target, answer.unwrap_or_default()));
        }))
        .map_err(search_error)?;
        return Ok(search);
    }
    pool::submit(Box::new(move || {
        let over = run_grep(query, &target, flag, batcher.as_ref());
        // A search thread that cannot start ends the search with what it found: nothing.
        outcome.finish(over.unwrap_or_else(|_| (target, grep::Answer::default())));
    }))
    .map_err(search_error)?;
    Ok(search)
}

/// A grep `grep_start` runs: `fileno()` becomes readable when it is over (an event
/// loop watches it with `add_reader`; -1 where there is none: call `wait`), and
/// `result()` then gives its answer, as `grep` does, once.
#[pyclass(frozen)]
struct GrepSearch {
    outcome: Arc<Outcome<(PathBuf, grep::Answer)>>,
    mode: Mode,
}

#[pymethods]
impl GrepSearch {
    fn fileno(&self) -> i32 {
        self.outcome.fileno()
    }

    #[getter]
    fn done(&self) -> bool {
        self.outcome.is_over()
    }

    /// Block (without the GIL) until the search is over, at most `timeout` seconds;
    /// whether it is.
    #[pyo3(signature = (timeout=None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> bool {
        let limit = timeout.map(|s| Duration::from_secs_f64(s.max(0.0)));
        py.detach(|| self.outcome.wait(limit))
    }

    /// The answer (each line made by `line_type(path, line, text, match)`, default a
    /// dict). RuntimeError while the search runs, or when the answer was taken.
    #[pyo3(signature = (line_type=None))]
    fn result<'py>(
        &self,
        py: Python<'py>,
        line_type: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        match self.outcome.take() {
            Ok(Some((dir, answer))) => answer_dict(py, &dir, self.mode, answer, line_type.as_ref()),
            Ok(None) => Err(PyRuntimeError::new_err("the search is still running")),
            Err(why) => Err(PyRuntimeError::new_err(why)),
        }
    }
}

/// Gathers hits and hands them to Python: what was found by `FIRST_BATCH_AFTER`, then
/// whatever came in at most `BATCH_INTERVAL` later (or `BATCH_SIZE` hits), checked as
/// each file is done, on the searching thread (no thread of its own). Hits still
/// waiting when the search ends are not sent: the answer, which holds them, is next.
struct Batcher {
    callback: Py<PyAny>,
    state: Mutex<(Vec<grep_tree::Hit>, Instant)>,
}

impl Batcher {
    fn new(callback: Py<PyAny>) -> Self {
        Self {
            callback,
            state: Mutex::new((Vec::new(), Instant::now() + FIRST_BATCH_AFTER)),
        }
    }

    fn take(&self, hit: Option<grep_tree::Hit>) {
        let mut state = self.state.lock().unwrap();
        let (batch, due) = &mut *state;
        batch.extend(hit);
        if batch.is_empty() || (Instant::now() < *due && batch.len() < BATCH_SIZE) {
            return;
        }
        let items: Vec<_> = std::mem::take(batch)
            .into_iter()
            .map(|hit| (hit.path, hit.count, hit.lines))
            .collect();
        Python::try_attach(|py| {
            if let Err(err) = self.callback.call1(py, (items,)) {
                err.write_unraisable(py, None);
            }
        });
        *due = Instant::now() + BATCH_INTERVAL;
    }
}

/// `run` with what hands a search's hits to `batcher`, if there is one.
fn listening<R>(batcher: Option<&Batcher>, run: impl FnOnce(grep_tree::OnHit) -> R) -> R {
    match batcher {
        Some(batcher) => run(Some(&|hit| batcher.take(hit))),
        None => run(None),
    }
}

fn answer_dict<'py>(
    py: Python<'py>,
    root: &Path,
    mode: Mode,
    answer: grep::Answer,
    line_type: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("root", root.to_string_lossy())?;
    out.set_item("mode", mode.name())?;
    let lines = PyList::empty(py);
    for line in answer.lines {
        if let Some(make) = line_type {
            lines.append(make.call1((line.path, line.line, line.text, line.is_match))?)?;
            continue;
        }
        let item = PyDict::new(py);
        item.set_item("path", line.path)?;
        item.set_item("line", line.line)?;
        item.set_item("text", line.text)?;
        item.set_item("match", line.is_match)?;
        lines.append(item)?;
    }
    out.set_item("lines", lines)?;
    out.set_item("files", answer.files)?;
    out.set_item("counts", answer.counts)?;
    out.set_item("matches", answer.matches)?;
    out.set_item("files_matched", answer.files_matched)?;
    out.set_item("files_searched", answer.files_searched)?;
    out.set_item("truncated", answer.truncated)?;
    out.set_item("skipped_binary", answer.skipped_binary)?;
    out.set_item("skipped_large", answer.skipped_large)?;
    Ok(out)
}

/// find under the folder `root`: entries whose path (`glob_path`) or name matches the
/// anchored regex `glob`. Returns `{"root", "paths", "total"}`.
#[pyfunction]
#[pyo3(name = "find", signature = (root, glob, glob_path=false, limit=1000, cancel=None))]
fn py_find<'py>(
    py: Python<'py>,
    root: PathBuf,
    glob: &str,
    glob_path: bool,
    limit: usize,
    cancel: Option<&CancelToken>,
) -> PyResult<Bound<'py, PyDict>> {
    let matcher = grep::path_matcher(glob).map_err(PyValueError::new_err)?;
    let flag = token_flag(cancel);
    let (paths, total) = py.detach(|| find::find(&root, &matcher, glob_path, limit, &flag));
    let out = PyDict::new(py);
    out.set_item("root", root.to_string_lossy())?;
    out.set_item("paths", paths)?;
    out.set_item("total", total)?;
    Ok(out)
}

/// Files (and links) under `root` the ignore rules keep, relative, sorted.
#[pyfunction]
#[pyo3(signature = (root, cancel=None))]
fn workspace_files(py: Python<'_>, root: PathBuf, cancel: Option<&CancelToken>) -> Vec<String> {
    let flag = token_flag(cancel);
    py.detach(|| {
        walk::collect(&root, &flag)
            .into_iter()
            .filter(|e| e.kind != walk::Kind::Dir)
            .map(|e| e.rel_str())
            .collect()
    })
}

/// A fixed list of paths to rank against many queries (@file completion).
#[pyclass(frozen)]
struct FuzzyIndex {
    paths: Vec<String>,
}

#[pymethods]
impl FuzzyIndex {
    #[new]
    fn new(paths: Vec<String>) -> Self {
        Self { paths }
    }

    /// The workspace's files under `root` (ignore rules applied).
    #[staticmethod]
    fn from_root(py: Python<'_>, root: PathBuf) -> Self {
        Self::new(workspace_files(py, root, None))
    }

    fn __len__(&self) -> usize {
        self.paths.len()
    }

    /// The `limit` best matches of `query`, best first, as (path, score).
    #[pyo3(signature = (query, limit=20))]
    fn rank(&self, py: Python<'_>, query: &str, limit: usize) -> Vec<(String, u32)> {
        let ranked = py.detach(|| fuzzy::rank(&self.paths, query, limit));
        ranked
            .into_iter()
            .map(|(i, score)| (self.paths[i].clone(), score))
            .collect()
    }
}

/// The `limit` best matches of `query` among `paths`, best first, as (path, score).
#[pyfunction]
#[pyo3(signature = (query, paths, limit=20))]
fn fuzzy_rank(py: Python<'_>, query: &str, paths: Vec<String>, limit: usize) -> Vec<(String, u32)> {
    FuzzyIndex::new(paths).rank(py, query, limit)
}

/// A depth-limited listing of `root` with per-folder file counts: `{"root", "lines"
/// (one per entry, the first `max_entries`), "total" (entries down to `max_depth`)}`.
#[pyfunction]
#[pyo3(name = "tree", signature = (root, max_depth=3, max_entries=200, cancel=None))]
fn py_tree<'py>(
    py: Python<'py>,
    root: PathBuf,
    max_depth: usize,
    max_entries: usize,
    cancel: Option<&CancelToken>,
) -> PyResult<Bound<'py, PyDict>> {
    let flag = token_flag(cancel);
    let (lines, total) = py.detach(|| tree::render(&root, max_depth, max_entries, &flag));
    let out = PyDict::new(py);
    out.set_item("root", root.to_string_lossy())?;
    out.set_item("lines", lines)?;
    out.set_item("total", total)?;
    Ok(out)
}

/// Terminal cells `text` takes.
#[pyfunction]
fn text_width(text: &str) -> usize {
    text::width(text)
}

/// `text` cut to `width` cells, ending in `ellipsis` when cut.
#[pyfunction]
#[pyo3(signature = (text, width, ellipsis="…"))]
fn truncate_to_width(text: &str, width: usize, ellipsis: &str) -> String {
    text::truncate(text, width, ellipsis)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<CancelToken>()?;
    m.add_class::<FuzzyIndex>()?;
    m.add_class::<GrepSearch>()?;
    m.add_function(wrap_pyfunction!(py_grep, m)?)?;
    m.add_function(wrap_pyfunction!(grep_start, m)?)?;
    m.add_function(wrap_pyfunction!(py_find, m)?)?;
    m.add_function(wrap_pyfunction!(workspace_files, m)?)?;
    m.add_function(wrap_pyfunction!(fuzzy_rank, m)?)?;
    m.add_function(wrap_pyfunction!(py_tree, m)?)?;
    m.add_function(wrap_pyfunction!(text_width, m)?)?;
    m.add_function(wrap_pyfunction!(truncate_to_width, m)?)?;
    Ok(())
}
