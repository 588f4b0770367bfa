//! The floor under any grep of a tree: the same gitignore-aware parallel walk, threads
//! and file reading (`grep::read_into` into `grep::with_read_buffer`'s buffer) as the natives grep,
//! and nothing else. Wall and CPU time per round (median and least of `ROUNDS`):
//!
//!     cargo run --release --example read_floor -- TREE [ROUNDS]
//!
//! bench/natives_search.py --floor runs it on its tree.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use omp_natives::grep::{read_into, with_read_buffer, MAX_FILE_BYTES};
use omp_natives::walk::{threads, walk_parallel, Kind};

#[cfg(unix)]
fn cpu_ms() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec;
    let micros = usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
    secs as f64 * 1000.0 + micros as f64 / 1000.0
}

#[cfg(not(unix))]
fn cpu_ms() -> f64 {
    0.0
}

/// (bytes read, files read) of one walk over `root`.
fn read_all(root: &Path) -> (u64, u64) {
    let (bytes, files) = (AtomicU64::new(0), AtomicU64::new(0));
    walk_parallel(root, &AtomicBool::new(false), |entry, path| {
        if entry.kind != Kind::File {
            return true;
        }
        with_read_buffer(|room| {
            if let Some(Ok(len)) = read_into(path, MAX_FILE_BYTES, room) {
                bytes.fetch_add(len as u64, Ordering::Relaxed);
                files.fetch_add(1, Ordering::Relaxed);
            }
        });
        true
    });
    (bytes.into_inner(), files.into_inner())
}

fn median(mut values: Vec<f64>) -> (f64, f64) {
    values.sort_by(f64::total_cmp);
    (values[values.len() / 2], values[0])
}

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().expect("usage: read_floor TREE [ROUNDS]");
    let rounds: usize = args
        .next()
        .map_or(9, |r| r.parse().expect("ROUNDS: a number"));
    let root = Path::new(&root);
    let (bytes, files) = read_all(root); // warm-up
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        let (start, cpu_start) = (Instant::now(), cpu_ms());
        read_all(root);
        wall.push(start.elapsed().as_secs_f64() * 1000.0);
        cpu.push(cpu_ms() - cpu_start);
    }
    let ((wall_med, wall_min), (cpu_med, cpu_min)) = (median(wall), median(cpu));
    println!(
        "{{\"bytes\": {bytes}, \"files\": {files}, \"threads\": {}, \"wall_ms\": {wall_med:.1}, \
         \"wall_min_ms\": {wall_min:.1}, \"cpu_ms\": {cpu_med:.1}, \"cpu_min_ms\": {cpu_min:.1}}}",
        threads()
    );
}
