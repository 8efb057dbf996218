//go:build linux

// Package ptytest opens a pseudo-terminal for tests: what a user's standard
// input is when nothing is piped in.
package ptytest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Open returns the terminal side of a new pseudo-terminal, closed when the
// test ends.
func Open(t testing.TB) *os.File {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("a terminal for the test: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the terminal: %v", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// Run runs a command in-process with a new terminal as its standard input,
// and returns its exit code and what it wrote. A command that waits on the
// terminal fails the test after ten seconds, where it would hang.
func Run(t testing.TB, run func(stdin *os.File, stdout, stderr io.Writer) int) (code int, stdout, stderr string) {
	t.Helper()
	tty := Open(t)
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(tty, &out, &errb) }()
	select {
	case code = <-done:
		return code, out.String(), errb.String()
	case <-time.After(10 * time.Second):
		t.Fatal("the command waits on the terminal")
		return 0, "", ""
	}
}
