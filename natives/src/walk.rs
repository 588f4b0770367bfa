//! The gitignore-aware walk shared by grep, find, tree and the fuzzy index: the same
//! entries the pure-Python walker yields (`.gitignore` and `.ignore` at every level,
//! `.git/info/exclude`, hidden files kept, `.git` skipped, links listed, never followed).

use std::cmp::Ordering as Order;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Dir,
    File,
    Link,
}

/// One walked entry: its path relative to the root (components kept, so sorting a list
/// of them gives the depth-first, name-sorted order of the pure-Python walker).
#[derive(Debug)]
pub struct Entry {
    pub rel: PathBuf,
    pub kind: Kind,
}

impl Entry {
    /// The relative path with `/` separators.
    pub fn rel_str(&self) -> String {
        slash_path(&self.rel)
    }

    pub fn name(&self) -> String {
        self.rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// The walker's relative paths are already `/`-separated here (no `.` or doubled
/// separators), so this is one copy, not a join of components.
#[cfg(unix)]
pub fn slash_path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

#[cfg(not(unix))]
pub fn slash_path(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

/// The walk order of two relative paths (depth first, names sorted), as comparing their
/// components would give, without splitting them: the bytes compared with the separator
/// taken as the lowest byte (a name holds neither it nor NUL).
pub fn walk_order(a: &Path, b: &Path) -> Order {
    let (a, b) = (
        a.as_os_str().as_encoded_bytes(),
        b.as_os_str().as_encoded_bytes(),
    );
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let key = |byte: u8| {
        if std::path::is_separator(byte as char) {
            0
        } else {
            byte
        }
    };
    match (a.get(same), b.get(same)) {
        (Some(&x), Some(&y)) => key(x).cmp(&key(y)),
        (x, y) => x.is_some().cmp(&y.is_some()),
    }
}

fn inside_repository(root: &Path) -> bool {
    root.ancestors().any(|dir| dir.join(".git").exists())
}

fn builder(root: &Path, threads: usize) -> WalkBuilder {
    // Parent ignore files count only inside a repository, up to its top (git's rule);
    // outside one, `.gitignore` files below the root still count.
    let in_repo = inside_repository(root);
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(in_repo)
        .require_git(in_repo)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .follow_links(false)
        .threads(threads)
        .filter_entry(|entry| entry.file_name() != ".git");
    builder
}

fn to_entry(root: &Path, entry: &ignore::DirEntry) -> Option<Entry> {
    if entry.depth() == 0 {
        return None;
    }
    let file_type = entry.file_type()?;
    let kind = if file_type.is_symlink() {
        Kind::Link
    } else if file_type.is_dir() {
        Kind::Dir
    } else {
        Kind::File
    };
    let rel = entry.path().strip_prefix(root).ok()?.to_path_buf();
    Some(Entry { rel, kind })
}

/// Calls `visit` for every entry under `root` from several threads (in no particular
/// order) until `visit` returns false or `cancel` is set. Unreadable folders are left
/// out, as in the pure-Python walker.
pub fn walk_parallel<F>(root: &Path, cancel: &AtomicBool, visit: F)
where
    F: Fn(Entry, &Path) -> bool + Sync,
{
    let visit = &visit;
    builder(root, threads()).build_parallel().run(|| {
        Box::new(move |result| {
            if cancel.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            let Ok(dir_entry) = result else {
                return WalkState::Continue;
            };
            match to_entry(root, &dir_entry) {
                Some(entry) => {
                    if visit(entry, dir_entry.path()) {
                        WalkState::Continue
                    } else {
                        WalkState::Quit
                    }
                }
                None => WalkState::Continue,
            }
        })
    });
}

/// Calls `visit` for every entry under `root` on this thread, in the pure-Python
/// walker's order (depth first, each folder's entries sorted by name), until `visit`
/// returns false.
pub fn walk_sorted<F>(root: &Path, mut visit: F)
where
    F: FnMut(Entry, &Path) -> bool,
{
    let mut builder = builder(root, 1);
    builder.sort_by_file_name(|a, b| a.cmp(b));
    for result in builder.build() {
        let Ok(dir_entry) = result else { continue };
        if let Some(entry) = to_entry(root, &dir_entry) {
            if !visit(entry, dir_entry.path()) {
                return;
            }
        }
    }
}

/// How many threads walk or search at once.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(12)
}

/// Every entry under `root`, sorted depth first by name (a folder's contents follow it).
pub fn collect(root: &Path, cancel: &AtomicBool) -> Vec<Entry> {
    let found = Mutex::new(Vec::new());
    walk_parallel(root, cancel, |entry, _| {
        found.lock().unwrap().push(entry);
        true
    });
    let mut found = found.into_inner().unwrap();
    found.sort_unstable_by(|a, b| walk_order(&a.rel, &b.rel));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("omp-natives-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("a/b")).unwrap();
        fs::create_dir_all(dir.join(".git")).unwrap();
        fs::write(dir.join(".gitignore"), "*.log\n!keep.log\n").unwrap();
        fs::write(dir.join("a/x.log"), "").unwrap();
        fs::write(dir.join("a/keep.log"), "").unwrap();
        fs::write(dir.join("a/b/c.txt"), "").unwrap();
        fs::write(dir.join("a.txt"), "").unwrap();
        fs::write(dir.join(".hidden"), "").unwrap();
        dir
    }

    #[test]
    fn walk_honours_gitignore_negation_and_sorts_depth_first() {
        let root = tree("walk");
        let names: Vec<String> = collect(&root, &AtomicBool::new(false))
            .iter()
            .map(Entry::rel_str)
            .collect();
        assert_eq!(
            names,
            [
                ".gitignore",
                ".hidden",
                "a",
                "a/b",
                "a/b/c.txt",
                "a/keep.log",
                "a.txt"
            ]
        );
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn the_sorted_walk_gives_the_same_order_on_one_thread() {
        let root = tree("sorted");
        let mut names = Vec::new();
        walk_sorted(&root, |entry, _| {
            names.push(entry.rel_str());
            true
        });
        let parallel: Vec<String> = collect(&root, &AtomicBool::new(false))
            .iter()
            .map(Entry::rel_str)
            .collect();
        assert_eq!(names, parallel);
        fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn walk_order_compares_as_components_do() {
        let paths = [
            "a", "a.txt", "a/b", "a/b/c", "a-b", "ab", "a/b.c", "b", "a/\u{e9}",
        ];
        for x in paths {
            for y in paths {
                let (x, y) = (Path::new(x), Path::new(y));
                assert_eq!(walk_order(x, y), x.cmp(y), "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn a_cancelled_walk_yields_nothing() {
        let root = tree("cancel");
        assert!(collect(&root, &AtomicBool::new(true)).is_empty());
        fs::remove_dir_all(root).unwrap();
    }
}
