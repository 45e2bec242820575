package projections

import "sync"

// foldPipe runs the projections' folds of one batch on a goroutine of its
// own while the runner judges the next batch. The two only meet in the
// store's stages of different tables, so it is used only when every table
// of the catch-up is staged (see [Runner.pipelined]); the runner waits for
// it before it commits or rolls back.
type foldPipe struct {
	queue chan func() error
	busy  sync.WaitGroup // submitted folds not yet run
	done  chan struct{}
	mu    sync.Mutex
	err   error // the first fold that failed; later ones are skipped
}

func newFoldPipe() *foldPipe {
	fp := &foldPipe{queue: make(chan func() error, 1), done: make(chan struct{})}
	go func() {
		defer close(fp.done)
		for fold := range fp.queue {
			if fp.failed() == nil {
				if err := fold(); err != nil {
					fp.mu.Lock()
					fp.err = err
					fp.mu.Unlock()
				}
			}
			fp.busy.Done()
		}
	}()
	return fp
}

func (fp *foldPipe) failed() error {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	return fp.err
}

// submit queues a fold, or returns the error of an earlier one.
func (fp *foldPipe) submit(fold func() error) error {
	if err := fp.failed(); err != nil {
		return err
	}
	fp.busy.Add(1)
	fp.queue <- fold
	return nil
}

// wait returns when every submitted fold has run, with the first error.
func (fp *foldPipe) wait() error {
	fp.busy.Wait()
	return fp.failed()
}

// stop waits for the folds and ends the goroutine.
func (fp *foldPipe) stop() error {
	close(fp.queue)
	<-fp.done
	return fp.failed()
}
