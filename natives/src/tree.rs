//! A depth-limited listing of a workspace with per-folder counts (for the system prompt
//! and `ls`): the walk's entries, folders first shown with how many files they hold.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::walk::{collect, Kind};

/// Lines `name/ (N files)` for folders, `name@` for links and `name` for files,
/// indented two spaces per level, down to `max_depth` levels, at most `max_entries` of
/// them; and how many entries there are down to that depth. N counts every file and
/// link below the folder, at any depth (ignore rules applied).
pub fn render(
    root: &Path,
    max_depth: usize,
    max_entries: usize,
    cancel: &AtomicBool,
) -> (Vec<String>, usize) {
    let entries = collect(root, cancel);
    let mut files_below: HashMap<PathBuf, usize> = HashMap::new();
    for entry in entries.iter().filter(|e| e.kind != Kind::Dir) {
        for dir in entry.rel.ancestors().skip(1) {
            if dir.as_os_str().is_empty() {
                break;
            }
            *files_below.entry(dir.to_path_buf()).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    let mut total = 0;
    for entry in &entries {
        let depth = entry.rel.components().count();
        if depth > max_depth {
            continue;
        }
        total += 1;
        if out.len() >= max_entries {
            continue;
        }
        let indent = "  ".repeat(depth - 1);
        let name = entry.name();
        out.push(match entry.kind {
            Kind::Dir => {
                let n = files_below.get(&entry.rel).copied().unwrap_or(0);
                let noun = if n == 1 { "file" } else { "files" };
                format!("{indent}{name}/ ({n} {noun})")
            }
            Kind::Link => format!("{indent}{name}@"),
            Kind::File => format!("{indent}{name}"),
        });
    }
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn folders_show_how_many_files_they_hold_below_the_depth_limit() {
        let root = std::env::temp_dir().join(format!("omp-natives-tree-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("src/deep")).unwrap();
        fs::write(root.join("src/a.py"), "").unwrap();
        fs::write(root.join("src/deep/b.py"), "").unwrap();
        fs::write(root.join("README.md"), "").unwrap();
        let lines = render(&root, 1, 100, &AtomicBool::new(false));
        assert_eq!(
            lines,
            (vec!["README.md".to_string(), "src/ (2 files)".into()], 2)
        );
        let (lines, total) = render(&root, 3, 2, &AtomicBool::new(false));
        assert_eq!(
            (lines, total),
            (vec!["README.md".to_string(), "src/ (2 files)".into()], 5)
        );
        fs::remove_dir_all(root).unwrap();
    }
}
