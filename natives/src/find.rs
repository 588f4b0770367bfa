//! find: the walk's entries whose relative path (a glob with `/`) or name matches,
//! folders ending in `/`, sorted as strings, capped.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;

use crate::walk::{walk_parallel, Kind};

/// (the first `limit` sorted matches, how many matched in all).
pub fn find(
    root: &Path,
    glob: &RegexMatcher,
    whole_path: bool,
    limit: usize,
    cancel: &AtomicBool,
) -> (Vec<String>, usize) {
    let found = Mutex::new(Vec::new());
    walk_parallel(root, cancel, |entry, _| {
        let rel = entry.rel_str();
        let subject = if whole_path {
            rel.clone()
        } else {
            entry.name()
        };
        if glob.is_match(subject.as_bytes()).unwrap_or(false) {
            let shown = if entry.kind == Kind::Dir {
                rel + "/"
            } else {
                rel
            };
            found.lock().unwrap().push(shown);
        }
        true
    });
    let mut found = found.into_inner().unwrap();
    let total = found.len();
    found.sort_unstable();
    found.truncate(limit.max(1));
    (found, total)
}
