//! The threads `grep_start` runs searches on, kept between searches. A thread started
//! for each search waits behind whatever else runs on a busy machine before its first
//! turn (the scheduler places a new thread after the ones already waiting), where a
//! kept thread that wakes for the next search gets its turn at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

pub type Job = Box<dyn FnOnce() + Send>;

struct Pool {
    jobs: Mutex<mpsc::Sender<Job>>,
    queue: Arc<Mutex<mpsc::Receiver<Job>>>,
    /// Threads waiting for a job and not yet promised one.
    idle: AtomicUsize,
}

fn shared() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let (jobs, queue) = mpsc::channel();
        Pool {
            jobs: Mutex::new(jobs),
            queue: Arc::new(Mutex::new(queue)),
            idle: AtomicUsize::new(0),
        }
    })
}

/// Runs `job` on a waiting thread, or on a new one (then kept) when all are busy, so a
/// job never waits for another to finish.
pub fn submit(job: Job) -> std::io::Result<()> {
    let pool = shared();
    let promised = pool
        .idle
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .is_ok();
    if !promised {
        let queue = pool.queue.clone();
        std::thread::Builder::new()
            .name("omp-natives-grep".into())
            .spawn(move || loop {
                let job = queue.lock().unwrap().recv();
                let Ok(job) = job else { break };
                job();
                shared().idle.fetch_add(1, Ordering::AcqRel);
            })?;
    }
    pool.jobs
        .lock()
        .unwrap()
        .send(job)
        .map_err(|_| std::io::Error::other("the search threads are gone"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn jobs_run_at_once_even_while_others_are_busy_and_threads_are_kept() {
        let (done, finished) = channel();
        let (release, blocked) = channel::<()>();
        let blocked = Arc::new(Mutex::new(blocked));
        for _ in 0..3 {
            let (done, blocked) = (done.clone(), blocked.clone());
            submit(Box::new(move || {
                let _ = blocked.lock().unwrap().recv_timeout(Duration::from_secs(5));
                done.send(std::thread::current().id()).unwrap();
            }))
            .unwrap();
        }
        let done_quick = done.clone();
        submit(Box::new(move || {
            done_quick.send(std::thread::current().id()).unwrap()
        }))
        .unwrap();
        let quick = finished.recv_timeout(Duration::from_secs(2)).unwrap();
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        let mut threads: Vec<_> = (0..3).map(|_| finished.recv().unwrap()).collect();
        threads.push(quick);
        threads.sort_by_key(|id| format!("{id:?}"));
        threads.dedup();
        assert_eq!(threads.len(), 4);
        // All four wait now: the next four jobs start no thread.
        std::thread::sleep(Duration::from_millis(50));
        assert!(shared().idle.load(Ordering::Acquire) >= 4);
    }
}
