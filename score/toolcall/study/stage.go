package study

// Details are staged before they reach the spool: the read pass keeps one
// buffer per band of rows and writes a band's entries to the spool together,
// as one segment, when its buffer fills (and every band's when the run is
// settled). A file that answers requests in any order then leaves each band's
// entries in a few segments of the spool, so settle reads a chunk of rows back
// in a few large reads instead of one small read per entry.

const (
	// stageBytes is the size of a band's buffer: the segments it writes.
	stageBytes = 64 << 10
	// stageBands is the most bands there are, so the buffers take at most
	// stageBands*stageBytes (8 MiB) however many rows the study has.
	stageBands = 128
	// stageRows is the fewest rows a band holds.
	stageRows = 4096
)

// stage holds the bands' buffers and, for each, the attempts whose entries it
// holds (their offsets are into the buffer until it is written).
type stage struct {
	rowsPer int // rows per band
	size    int // bytes per buffer
	bufs    [][]byte
	atts    [][]int
}

func newStage(rows int) stage {
	return sizedStage(rows, max(stageRows, (rows+stageBands-1)/stageBands), stageBytes)
}

func sizedStage(rows, rowsPer, size int) stage {
	bands := max(1, (rows+rowsPer-1)/rowsPer)
	return stage{rowsPer: rowsPer, size: size, bufs: make([][]byte, bands), atts: make([][]int, bands)}
}

// stageEntry adds attempt i's entry (of row row): its offset is into its band's
// buffer, and fStaged says so, until the band is written.
func (run *Run) stageEntry(i, row int, entry []byte) error {
	st := &run.stage
	b := row / st.rowsPer
	if len(st.bufs[b])+len(entry) > st.size {
		if err := run.writeBand(b); err != nil {
			return err
		}
	}
	a := &run.atts[i]
	if len(entry) > st.size {
		off, err := run.spool.write(entry)
		a.det = off
		return err
	}
	if st.bufs[b] == nil {
		st.bufs[b] = make([]byte, 0, st.size)
	}
	a.det = int64(len(st.bufs[b]))
	a.flags |= fStaged
	st.bufs[b] = append(st.bufs[b], entry...)
	st.atts[b] = append(st.atts[b], i)
	return nil
}

// writeBand writes band b's buffer to the spool and gives its attempts their
// offsets there. An attempt listed twice (replaced by a later record of the
// same band) is moved once: its slot holds the later entry's offset.
func (run *Run) writeBand(b int) error {
	st := &run.stage
	if len(st.atts[b]) == 0 {
		return nil
	}
	base, err := run.spool.write(st.bufs[b])
	if err != nil {
		return err
	}
	for _, i := range st.atts[b] {
		if a := &run.atts[i]; a.has(fStaged) {
			a.det += base
			a.flags &^= fStaged
		}
	}
	st.bufs[b], st.atts[b] = st.bufs[b][:0], st.atts[b][:0]
	return nil
}

// writeBands writes every band's buffer to the spool.
func (run *Run) writeBands() error {
	for b := range run.stage.bufs {
		if err := run.writeBand(b); err != nil {
			return err
		}
	}
	return nil
}
