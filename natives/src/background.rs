//! The outcome of a search `grep_start` began (over already when it returns, if it ended
//! within its time on the calling thread; else running on one of `pool`'s threads), and
//! how its caller learns it is over without that thread taking the GIL: the thread stores
//! the answer and writes a byte to a socket whose other end (`fileno`) an event loop
//! watches. The caller's thread then builds the Python answer itself. (Calling back into
//! Python from the searching thread instead meant two wake-ups: the event loop's, then
//! its wait for the GIL the calling-back thread still held.) The socket is made when
//! `fileno` is first asked for: a search over before anyone watches needs none.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

#[cfg(unix)]
use std::io::Write;
#[cfg(unix)]
use std::os::unix::net::UnixStream;

/// One search's outcome, set once by the searching thread and taken once by its caller.
pub struct Outcome<T> {
    state: Mutex<Shared<T>>,
    over: Condvar,
}

struct Shared<T> {
    value: State<T>,
    /// (the end the caller watches, the end the searching thread writes to), once
    /// `fileno` made them; both stay open while either side holds the outcome, so the
    /// write never meets a closed peer.
    #[cfg(unix)]
    wake: Option<(UnixStream, UnixStream)>,
}

enum State<T> {
    Running,
    Over(T),
    Taken,
}

#[cfg(unix)]
fn ring(wake: &Option<(UnixStream, UnixStream)>) {
    if let Some((_, writer)) = wake {
        let mut writer: &UnixStream = writer;
        // A full buffer still reads as readable; nothing else can go wrong that the
        // caller would not see through `is_over`.
        let _ = writer.write(&[1]);
    }
}

impl<T> Default for Outcome<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Outcome<T> {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(Shared {
                value: State::Running,
                #[cfg(unix)]
                wake: None,
            }),
            over: Condvar::new(),
        }
    }

    /// Store the outcome and wake whoever waits (the socket, if made, then `wait`).
    pub fn finish(&self, value: T) {
        let mut state = self.state.lock().unwrap();
        state.value = State::Over(value);
        #[cfg(unix)]
        ring(&state.wake);
        drop(state);
        self.over.notify_all();
    }

    pub fn is_over(&self) -> bool {
        !matches!(self.state.lock().unwrap().value, State::Running)
    }

    /// Block until the outcome is set, at most `timeout`; whether it is.
    pub fn wait(&self, timeout: Option<Duration>) -> bool {
        let running = |state: &mut Shared<T>| matches!(state.value, State::Running);
        let guard = self.state.lock().unwrap();
        let guard = match timeout {
            None => self.over.wait_while(guard, running).unwrap(),
            Some(limit) => {
                self.over
                    .wait_timeout_while(guard, limit, running)
                    .unwrap()
                    .0
            }
        };
        !matches!(guard.value, State::Running)
    }

    /// The outcome, once: None while the search runs, Err after it was taken.
    pub fn take(&self) -> Result<Option<T>, &'static str> {
        let mut state = self.state.lock().unwrap();
        match std::mem::replace(&mut state.value, State::Taken) {
            State::Running => {
                state.value = State::Running;
                Ok(None)
            }
            State::Over(value) => Ok(Some(value)),
            State::Taken => Err("the answer was already taken"),
        }
    }

    /// The descriptor that becomes readable when the outcome is set (at once if it is
    /// already); -1 off unix, or when no socket can be made.
    pub fn fileno(&self) -> i32 {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let mut state = self.state.lock().unwrap();
            if state.wake.is_none() {
                let Ok(pair) = UnixStream::pair() else {
                    return -1;
                };
                state.wake = Some(pair);
                if !matches!(state.value, State::Running) {
                    ring(&state.wake);
                }
            }
            if let Some((reader, _)) = &state.wake {
                return reader.as_raw_fd();
            }
        }
        -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn the_outcome_is_taken_once_after_it_is_set() {
        let outcome = Outcome::<u32>::new();
        assert_eq!(outcome.take(), Ok(None));
        assert!(!outcome.wait(Some(Duration::from_millis(1))));
        outcome.finish(7);
        assert!(outcome.is_over() && outcome.wait(None));
        assert_eq!(outcome.take(), Ok(Some(7)));
        assert!(outcome.take().is_err());
    }

    #[test]
    fn a_waiter_on_another_thread_wakes_when_it_is_set() {
        let outcome = Arc::new(Outcome::<&str>::new());
        let setter = outcome.clone();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            setter.finish("done");
        });
        assert!(outcome.wait(Some(Duration::from_secs(5))));
        thread.join().unwrap();
        assert_eq!(outcome.take(), Ok(Some("done")));
    }

    #[cfg(unix)]
    #[test]
    fn its_socket_becomes_readable_when_it_is_set() {
        let outcome = Outcome::<u8>::new();
        let fd = outcome.fileno();
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll reads and writes only the one pollfd it is given.
        assert_eq!(unsafe { libc::poll(&mut poll, 1, 0) }, 0);
        outcome.finish(1);
        assert_eq!(unsafe { libc::poll(&mut poll, 1, 1000) }, 1);
        let late = Outcome::<u8>::new();
        late.finish(2);
        poll.fd = late.fileno(); // made after the outcome was set: readable at once
        assert_eq!(unsafe { libc::poll(&mut poll, 1, 0) }, 1);
    }
}
