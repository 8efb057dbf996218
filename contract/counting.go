package contract

import "io"

// CountingReader counts the bytes read from R: a reader that must know how far
// it got in its input (a report's readers, a piped fixture's copy).
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
