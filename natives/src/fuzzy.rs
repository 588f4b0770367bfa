//! Fuzzy path matching (nucleo-matcher, the matcher of the helix editor): ranked paths
//! for @file completion and "did you mean" suggestions.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// The `limit` best matches of `query` among `paths`, best first (ties: shorter path,
/// then by name), as (index into `paths`, score).
pub fn rank(paths: &[String], query: &str, limit: usize) -> Vec<(usize, u32)> {
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut buf = Vec::new();
    let mut scored: Vec<(usize, u32)> = paths
        .iter()
        .enumerate()
        .filter_map(|(i, path)| {
            pattern
                .score(Utf32Str::new(path, &mut buf), &mut matcher)
                .map(|score| (i, score))
        })
        .collect();
    let order = |a: &(usize, u32), b: &(usize, u32)| {
        b.1.cmp(&a.1)
            .then(paths[a.0].len().cmp(&paths[b.0].len()))
            .then(paths[a.0].cmp(&paths[b.0]))
    };
    if scored.len() > limit && limit > 0 {
        scored.select_nth_unstable_by(limit - 1, order);
        scored.truncate(limit);
    }
    scored.sort_by(order);
    scored.truncate(limit);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_path_ranks_first() {
        let paths: Vec<String> = ["src/main.rs", "docs/readme.md", "src/mod/main_test.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ranked = rank(&paths, "mainrs", 10);
        assert_eq!(paths[ranked[0].0], "src/main.rs");
        assert!(ranked.iter().all(|(i, _)| paths[*i] != "docs/readme.md"));
    }

    #[test]
    fn the_limit_caps_the_results() {
        let paths: Vec<String> = (0..50).map(|i| format!("file{i}.py")).collect();
        assert_eq!(rank(&paths, "py", 5).len(), 5);
    }
}
