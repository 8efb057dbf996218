package contract

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"time"
)

// Pending is the set of outputs being written beside their names, each to be
// renamed into place once whole (fbeval's -o and --cases-out, fbeval-batch's
// batch files). A signal that ends the process removes them (RemoveOnSignal),
// and from then on none is renamed into place: a writer that gets there waits
// for the process's end, rather than replacing a file after the signal, or
// taking its own file, removed by the handler, for another process's doing.
type Pending struct {
	mu       sync.Mutex
	m        map[string]bool
	stopping bool
}

// NewPending returns an empty set.
func NewPending() *Pending { return &Pending{m: map[string]bool{}} }

// Add notes the temporary file tmp.
func (p *Pending) Add(tmp string) { p.mu.Lock(); p.m[tmp] = true; p.mu.Unlock() }

// Forget drops tmp from the set (its writer removes it, or has renamed it).
func (p *Pending) Forget(tmp string) { p.mu.Lock(); delete(p.m, tmp); p.mu.Unlock() }

// Discard removes the file tmp and drops it from the set.
func (p *Pending) Discard(tmp string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, tmp)
	os.Remove(tmp)
}

// Rename renames tmp to target, unless a signal is ending the process: then it
// waits for that end.
func (p *Pending) Rename(tmp, target string) error {
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		select {}
	}
	defer p.mu.Unlock()
	delete(p.m, tmp)
	return os.Rename(tmp, target)
}

// WaitIfStopping waits for the process's end when a signal is ending it.
func (p *Pending) WaitIfStopping() {
	p.mu.Lock()
	stopping := p.stopping
	p.mu.Unlock()
	if stopping {
		select {}
	}
}

// RemoveAll removes every file of the set; from then on none is renamed
// (what a signal's handler runs).
func (p *Pending) RemoveAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopping = true
	for tmp := range p.m {
		os.Remove(tmp)
		delete(p.m, tmp)
	}
}

// RemoveOnSignal makes each of sigs remove the set's files (RemoveAll), then
// end the process as the signal ends one (the shell's 130 for SIGINT, 143 for
// SIGTERM), or with exit 2 where a process cannot send itself the signal. A
// signal the process was started ignoring (SIGHUP under nohup, SIGINT in a
// shell's background job) is left ignored: it ends nothing.
func (p *Pending) RemoveOnSignal(sigs ...os.Signal) {
	var caught []os.Signal
	for _, sig := range sigs {
		if !signal.Ignored(sig) {
			caught = append(caught, sig)
		}
	}
	if len(caught) == 0 {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, caught...)
	go func() {
		sig := <-c
		p.RemoveAll()
		signal.Reset()
		// sent again with the handler reset, the signal ends the process
		// a moment later: the exit below would win the race without the
		// wait
		if self, err := os.FindProcess(os.Getpid()); err == nil && self.Signal(sig) == nil {
			time.Sleep(time.Second)
		}
		os.Exit(2)
	}()
}

// CreateBeside creates a new file to write path's contents into, in path's
// folder and named after it (.NAME.N.tmp), noted in pending when that is not
// nil, with the mode path has where it is a file there (perm less the umask
// where not, as os.OpenFile gives, which os.CreateTemp's 0600 is not). A file
// this user cannot write is refused, as writing it in place would be: renamed
// over it, the new file would replace it all the same. A symbolic link at path
// is replaced by the rename, its target left as it is: neither is looked at.
func CreateBeside(path string, perm os.FileMode, pending *Pending) (*os.File, error) {
	st, err := os.Lstat(path)
	if err == nil && st.Mode().IsRegular() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		w.Close()
	}
	for {
		tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d.tmp", filepath.Base(path), rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if pending != nil {
			pending.Add(tmp)
		}
		if st != nil && st.Mode().IsRegular() {
			if err := f.Chmod(st.Mode().Perm()); err != nil {
				f.Close()
				os.Remove(tmp)
				if pending != nil {
					pending.Forget(tmp)
				}
				return nil, err
			}
		}
		return f, nil
	}
}
