package storetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// The large object: LargeLines numbered lines, then NUL bytes (one giant
// line without a terminator, sparse on disk), then LargeLines tail lines, in
// LargeSize bytes in all.
const (
	LargeSize  = 1 << 30
	LargeLines = 1000
	lineWidth  = 12 // "line 000001\n"
)

func largeHead() string {
	var b strings.Builder
	for i := 1; i <= LargeLines; i++ {
		fmt.Fprintf(&b, "line %06d\n", i)
	}
	return b.String()
}

func largeTail() string {
	var b strings.Builder
	b.WriteByte('\n') // ends the giant line
	for i := 1; i <= LargeLines; i++ {
		fmt.Fprintf(&b, "tail %06d\n", i)
	}
	return b.String()
}

// WriteSparseLarge writes the large object as a sparse file.
func WriteSparseLarge(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteString(largeHead()); err != nil {
		return err
	}
	tail := largeTail()
	if _, err := f.WriteAt([]byte(tail), LargeSize-int64(len(tail))); err != nil {
		return err
	}
	return f.Close()
}

// LargeReader returns the large object as a ReadSeeker that holds only its
// head and tail in memory, for uploading it.
func LargeReader() io.ReadSeeker {
	head, tail := largeHead(), largeTail()
	return &largeReader{head: head, tail: tail, tailAt: LargeSize - int64(len(tail))}
}

type largeReader struct {
	head, tail string
	tailAt     int64
	off        int64
}

func (r *largeReader) Read(p []byte) (int, error) {
	if r.off >= LargeSize {
		return 0, io.EOF
	}
	n := min(int64(len(p)), LargeSize-r.off)
	for i := int64(0); i < n; i++ {
		o := r.off + i
		switch {
		case o < int64(len(r.head)):
			p[i] = r.head[o]
		case o >= r.tailAt:
			p[i] = r.tail[o-r.tailAt]
		default:
			// zeros: fill the run at once
			end := min(n, r.tailAt-r.off)
			clear(p[i:end])
			i = end - 1
		}
	}
	r.off += n
	return int(n), nil
}

func (r *largeReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += LargeSize
	}
	if offset < 0 {
		return 0, errors.New("negative offset")
	}
	r.off = offset
	return offset, nil
}

// HeapWatch samples the live heap until stopped and returns its peak.
func HeapWatch() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// RunLargeObject checks windows over the large object stored at key "big.bin"
// of the store (root prefix ""): repeated windows allocate a bounded amount,
// the giant line fails at the byte budget, a scan across the whole object
// keeps the heap small, and a cursor near the end reads only a range.
func RunLargeObject(t *testing.T, store fileops.Store) {
	ctx := context.Background()
	o := NewOps(t, store, "", nil)
	const perWindow = 2 << 20

	runtime.GC()
	before := totalAlloc()
	const windows = 20
	for range windows {
		r, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.bin"})
		if err != nil {
			t.Fatal(err)
		}
		if r.EndLine != 200 || !strings.HasPrefix(r.Content, "line 000001\n") || !r.HasMore {
			t.Fatalf("first window = %d lines", r.EndLine)
		}
	}
	if avg := (totalAlloc() - before) / windows; avg > perWindow {
		t.Errorf("a window at line 1 allocates %d bytes on average, over %d", avg, perWindow)
	} else {
		t.Logf("a window at line 1 of a 1 GiB object allocates %d bytes on average", avg)
	}

	runtime.GC()
	before = totalAlloc()
	_, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.bin", StartLine: LargeLines + 1})
	fe := WantCode(t, err, fault.LimitExceeded)
	if fe.Details["limit"] != "maximumWindowBytes" {
		t.Errorf("giant line: %v", fe)
	}
	if alloc := totalAlloc() - before; alloc > perWindow {
		t.Errorf("the giant line allocated %d bytes before failing", alloc)
	}

	stop := HeapWatch()
	start := time.Now()
	r, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.bin", StartLine: LargeLines + 2, LineCount: 10})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "tail 000001\n"+strings.Join(tailLines(2, 10), "") || r.Next == nil {
		t.Fatalf("window after the giant line = %q", r.Content)
	}
	t.Logf("scanning 1 GiB to line %d took %v with a peak heap of %d bytes", LargeLines+2, time.Since(start), peak)
	if peak > 32<<20 {
		t.Errorf("peak heap %d bytes while scanning, over 32 MiB", peak)
	}

	start = time.Now()
	r2, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.bin", Cursor: r.Next.Cursor, LineCount: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r2.CursorStale || r2.StartLine != LargeLines+12 || !strings.HasPrefix(r2.Content, "tail 000011\n") {
		t.Fatalf("cursor window = %+v", r2)
	}
	t.Logf("the cursor window near the end took %v", time.Since(start))
	last, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "big.bin", StartLine: 2*LargeLines + 1, Cursor: ""})
	_ = last
	if err != nil {
		t.Fatal(err)
	}
	if last.TotalLines == nil || *last.TotalLines != 2*LargeLines+1 || last.Content != "tail 001000\n" {
		t.Errorf("last window = %+v", last)
	}
}

func tailLines(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("tail %06d\n", i))
	}
	return out
}

// LoadDir copies a directory tree into a store under prefix, each file
// under its slash-separated relative path.
func LoadDir(t testing.TB, s fileops.Store, prefix, dir string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		_, err = s.Put(context.Background(), prefix+filepath.ToSlash(rel), b, fileops.PutOptions{ContentType: fileops.ContentTypeOf(rel)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
