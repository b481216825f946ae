package main

import (
	"context"
	"os"
	"os/signal"
)

// notifyInterrupts turns Ctrl-C (SIGINT) into what a run obeys: the first
// ends stop (stop sending, then wait up to -timeout for the answers in
// flight), the second closes abort (stop waiting, report what came).
// release stops listening for the signal; Ctrl-C then ends the process
// again.
func notifyInterrupts() (stop context.Context, abort <-chan struct{}, release func()) {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt)
	stop, abort, end := interrupts(sig)
	return stop, abort, func() {
		signal.Stop(sig)
		end()
	}
}

// interrupts is notifyInterrupts on the signals sig delivers.
func interrupts(sig <-chan os.Signal) (stop context.Context, abort <-chan struct{}, end func()) {
	stop, cancel := context.WithCancel(context.Background())
	ab := make(chan struct{})
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sig:
			close(ab)
		case <-done:
		}
	}()
	return stop, ab, func() {
		close(done)
		cancel()
	}
}
