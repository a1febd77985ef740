package fileops

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/semaphore"

	"github.com/filecontext-aws/filecontext/pkg/fault"
)

// GrepArgs are the arguments of file_access_grep.
type GrepArgs struct {
	RegexPattern  string
	GlobPattern   string
	Directory     string
	CaseSensitive bool
}

// GrepResult is the result of file_access_grep.
type GrepResult struct {
	Results      []GrepFile   `json:"results"`
	Truncated    bool         `json:"truncated"`
	FilesScanned int          `json:"filesScanned"`
	FilesSkipped FilesSkipped `json:"filesSkipped"`
	Limit        string       `json:"limit,omitempty"`
}

// FilesSkipped counts files grep did not scan, by reason.
type FilesSkipped struct {
	TooLarge int `json:"tooLarge"`
	Binary   int `json:"binary"`
	// InvalidName counts keys in storage that are not valid logical paths
	// ("../x", "a//b", control characters): never shown, never read.
	InvalidName int `json:"invalidName"`
}

// GrepFile is the matches of one file. FileName is relative to the root.
type GrepFile struct {
	FileName      string      `json:"fileName"`
	Snippet       string      `json:"snippet"`
	MatchingLines []MatchLine `json:"matchingLines"`
	Truncated     bool        `json:"truncated,omitempty"`
}

// MatchLine is one matching line, verbatim with its terminator.
type MatchLine struct {
	LineNumber int    `json:"lineNumber"`
	Line       string `json:"line"`
}

// snippetRunes is how many characters a snippet keeps on each side of the
// first match.
const snippetRunes = 50

// grepJob is one listed file on its way through the ordered pipeline.
type grepJob struct {
	key, fileName string
	size          int64
	limitSentinel bool // the scanned-files limit stopped the listing here
	done          chan struct{}
	result        *GrepFile
	skipped       string // "", "tooLarge" or "binary"
	err           error
}

// Grep searches the text files under a directory recursively. Files are
// fetched concurrently, but results, counts and the point where a limit stops
// the search depend only on the byte order of file names, never on timing.
func (s *Service) Grep(ctx context.Context, a GrepArgs) (*GrepResult, error) {
	d, err := s.root.ParseDir(a.Directory)
	if err != nil {
		return nil, err
	}
	if a.RegexPattern == "" {
		return nil, fault.New(fault.InvalidArgument, "regexPattern must not be empty.")
	}
	if n := len(a.RegexPattern); n > s.limits.MaximumGrepPatternLength {
		return nil, fault.Limit("maximumGrepPatternLength", s.limits.MaximumGrepPatternLength, "regexPattern is %d bytes, over the limit of %d.", n, s.limits.MaximumGrepPatternLength)
	}
	expr := a.RegexPattern
	if !a.CaseSensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		return nil, fault.New(fault.InvalidPattern,
			"regexPattern does not compile (%s). Patterns use RE2 syntax: lookarounds and backreferences are not supported.", msg).
			With("pattern", a.RegexPattern)
	}
	g, err := CompileGlob(a.GlobPattern)
	if err != nil {
		return nil, err
	}
	m := newMatcher(re)

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	regexDeadline := time.Now().Add(s.limits.RegexTimeout)
	check := func() error {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		if time.Now().After(regexDeadline) {
			return fault.Limit("regexTimeout", s.limits.RegexTimeout.String(), "The search ran past its time budget of %s; narrow directory or globPattern, or simplify the pattern.", s.limits.RegexTimeout)
		}
		return nil
	}

	workers := s.limits.GrepConcurrency
	window := semaphore.NewWeighted(s.limits.GrepWindowBytes)
	order := make(chan *grepJob, 2*workers)
	jobs := make(chan *grepJob, 2*workers)
	var listErr error
	go func() {
		defer close(order)
		defer close(jobs)
		listErr = s.listForGrep(ctx, d.Key(), g, order, jobs)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch, buf []byte
			for j := range jobs {
				s.grepFile(ctx, j, m, window, &buf, &scratch, check)
				close(j.done)
			}
		}()
	}
	defer wg.Wait()

	res := &GrepResult{Results: []GrepFile{}}
	for j := range order {
		if len(res.Results) == s.limits.MaximumGrepFilesMatched {
			res.Truncated, res.Limit = true, "maximumGrepFilesMatched"
			break
		}
		if j.limitSentinel {
			res.Truncated, res.Limit = true, "maximumGrepFilesScanned"
			break
		}
		<-j.done
		if j.err != nil {
			cancel()
			return nil, j.err
		}
		switch j.skipped {
		case "tooLarge":
			res.FilesSkipped.TooLarge++
			continue
		case "binary":
			res.FilesSkipped.Binary++
			continue
		case "invalidName":
			res.FilesSkipped.InvalidName++
			continue
		case "gone":
			continue
		}
		res.FilesScanned++
		if j.result != nil {
			res.Results = append(res.Results, *j.result)
		}
	}
	cancel()
	for j := range order { // drain so the lister ends
		_ = j
	}
	if err := ctxErr(parent); err != nil {
		return nil, err
	}
	if listErr != nil && !res.Truncated {
		return nil, listErr
	}
	return res, nil
}

// listForGrep lists the files under prefix in byte order and feeds them to
// the pipeline, stopping after one file more than the scanned-files limit.
func (s *Service) listForGrep(ctx context.Context, prefix string, g *Glob, order, jobs chan<- *grepJob) error {
	scannable := 0
	token := ""
	for {
		page, err := s.store.List(ctx, ListOptions{Prefix: prefix, Token: token})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			rel, _ := s.root.Rel(prefix)
			return MapStoreError("list", strings.TrimSuffix(rel, "/"), err)
		}
		for _, o := range page.Objects {
			if strings.HasSuffix(o.Key, "/") || !g.Match(o.Key[len(prefix):]) {
				continue
			}
			p, err := s.root.FromKey(o.Key)
			if err != nil {
				j := &grepJob{skipped: "invalidName", done: make(chan struct{})}
				close(j.done)
				select {
				case order <- j:
					continue
				case <-ctx.Done():
					return nil
				}
			}
			j := &grepJob{key: o.Key, fileName: p.String(), size: o.Size, done: make(chan struct{})}
			if o.Size <= s.limits.MaximumGrepFileBytes {
				if scannable == s.limits.MaximumGrepFilesScanned {
					j.limitSentinel = true
					select {
					case order <- j:
					case <-ctx.Done():
					}
					return nil
				}
				scannable++
			}
			select {
			case order <- j:
			case <-ctx.Done():
				return nil
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				close(j.done)
				return nil
			}
		}
		if token = page.NextToken; token == "" {
			return nil
		}
	}
}

// grepFile fetches and matches one file, filling in j.
// buf and scratch are the worker's buffers, reused from file to file:
// matched lines are copied out as strings.
func (s *Service) grepFile(ctx context.Context, j *grepJob, m *matcher, window *semaphore.Weighted, buf, scratch *[]byte, check func() error) {
	limit := s.limits.MaximumGrepFileBytes
	if j.size > limit {
		j.skipped = "tooLarge"
		return
	}
	if j.err = check(); j.err != nil {
		return
	}
	// The file's bytes (and a line's scratch copy) count against the
	// window while it is fetched and matched; a worker keeps only small
	// buffers between files.
	need := min(2*(j.size+1), s.limits.GrepWindowBytes)
	if err := window.Acquire(ctx, need); err != nil {
		j.err = fault.As(err)
		return
	}
	defer func() {
		if cap(*buf) > keptBufferBytes {
			*buf = nil
		}
		if cap(*scratch) > keptBufferBytes {
			*scratch = nil
		}
		window.Release(need)
	}()
	obj, err := s.store.Get(ctx, j.key, GetOptions{Length: limit + 1})
	if err != nil {
		if isNotFound(err) { // deleted since it was listed
			j.skipped = "gone"
			return
		}
		j.err = MapStoreError("read", j.fileName, err)
		return
	}
	text, err := readBody(obj, limit+1, (*buf)[:0])
	*buf = text
	if err != nil {
		j.err = MapStoreError("read", j.fileName, err)
		return
	}
	if int64(len(text)) > limit {
		j.skipped = "tooLarge"
		return
	}
	if !IsText(text) {
		j.skipped = "binary"
		return
	}
	var f *GrepFile
	err = m.scan(text, scratch, check, func(lm lineMatch) bool {
		line := text[lm.start:lm.end]
		if f == nil {
			f = &GrepFile{FileName: j.fileName, Snippet: snippet(m.re, line[:len(line)-lm.termLen])}
		}
		if len(f.MatchingLines) == s.limits.MaximumGrepLinesPerFile {
			f.Truncated = true
			return false
		}
		f.MatchingLines = append(f.MatchingLines, MatchLine{LineNumber: lm.number, Line: string(line)})
		return true
	})
	if err != nil {
		j.err = err
		return
	}
	j.result = f
}

// keptBufferBytes is the largest buffer a grep worker keeps between files.
const keptBufferBytes = 256 << 10

// readBody reads at most n bytes of an object into buf and closes it,
// growing buf to the object's size first.
func readBody(obj *Object, n int64, buf []byte) ([]byte, error) {
	defer obj.Body.Close()
	if size := min(obj.Info.Size, n) + 1; int64(cap(buf)) < size {
		buf = make([]byte, 0, size)
	}
	for {
		if int64(len(buf)) >= n {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		k, err := obj.Body.Read(buf[len(buf):min(int64(cap(buf)), n)])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// snippet returns the first match in line with up to snippetRunes characters
// on each side.
func snippet(re *regexp.Regexp, line []byte) string {
	loc := re.FindIndex(line)
	if loc == nil {
		return ""
	}
	start, end := loc[0], loc[1]
	for i := 0; i < snippetRunes && start > 0; i++ {
		_, n := utf8.DecodeLastRune(line[:start])
		start -= n
	}
	for i := 0; i < snippetRunes && end < len(line); i++ {
		_, n := utf8.DecodeRune(line[end:])
		end += n
	}
	return string(line[start:end])
}
