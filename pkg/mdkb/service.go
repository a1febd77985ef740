package mdkb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/mdkb/kblimits"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Limits bound a graph call (see package kblimits).
type Limits = kblimits.Limits

// DefaultLimits returns the contract's limits.
func DefaultLimits() Limits { return kblimits.Default() }

// Service builds, searches and exports the graph of a scope over the data
// store, keeping snapshots in the system store.
type Service struct {
	data      fileops.Store
	root      pathsafe.Root
	snapshots fileops.Store
	limits    Limits

	mu    sync.Mutex
	cache map[string]*snapshot // by snapshot key: the last snapshot this process saw
	saves sync.WaitGroup       // snapshot saves in flight
}

// Flush waits for the snapshot saves that tool calls started in the
// background.
func (s *Service) Flush() { s.saves.Wait() }

// New returns a Service. snapshots is the system store (never reachable by
// agents); it may be nil, and then nothing is kept between calls.
func New(data fileops.Store, root pathsafe.Root, snapshots fileops.Store, limits Limits) *Service {
	return &Service{data: data, root: root, snapshots: snapshots, limits: limits, cache: map[string]*snapshot{}}
}

// snapshotVersion changes whenever the encoding of snapshots does; a
// snapshot of another version is ignored (and rebuilt).
const snapshotVersion = 9 // 3: wiki link targets without anchors, aliases; 4: skipped files; 5: link texts; 6: title sources; 7: graph parts and body index (codec.go); 8: parts count their statements; 9: document IRIs not stored

// snapshot is what is kept per scope: the parsed documents and the graph
// made of them, and the fingerprint of the manifest they were read at. It
// is stored in the form of codec.go, uncompressed: reading it back must
// cost a small part of a cold build, and compression cost more CPU than
// the transfer it saved.
type snapshot struct {
	Scope       string
	Fingerprint string
	Docs        []*DocInfo
	// Skips are the files of the listing that were fetched and left out
	// (not UTF-8, over the size limit), with the ETag they had: reported
	// the same when the snapshot is reused, and not fetched again while
	// they are unchanged.
	Skips []skippedFile
	etag  string
	graph *Graph // built once per snapshot, or read with it
}

// built returns the snapshot's graph, building it on first use from the
// parts of prev (nil, or the graph of an earlier snapshot of the scope)
// that still hold.
func (s *snapshot) built(prev *Graph) *Graph {
	if s.graph == nil {
		s.graph = build(prev, s.Docs)
	}
	return s.graph
}

// SnapshotInfo tells whether a call reused a snapshot.
type SnapshotInfo struct {
	Fingerprint string `json:"fingerprint"`
	Reused      bool   `json:"reused"`
	Fetched     int    `json:"fetched"`
}

// InvalidNames counts keys in scope that are not valid logical paths ("..",
// empty segments, control characters): never read, never shown.
type InvalidNames struct {
	InvalidName int `json:"invalidName"`
}

// Skipped is a file in scope that is not in the graph.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"` // tooLarge, binary, overFileLimit
}

type listed struct {
	key, path, etag string
	size            int64
	modified        time.Time
}

// skippedFile is a fetched file left out of the graph, as of its ETag.
type skippedFile struct {
	Path, ETag, Reason string
}

// scopeState is the outcome of loading a scope.
type scopeState struct {
	graph    *Graph
	snap     SnapshotInfo
	skipped  []Skipped
	invalid  *InvalidNames // nil when there were none
	inScope  int           // Markdown files in scope with valid names
	capLimit string        // the cap that left documents out, or ""
}

func (s *Service) snapshotKey(dir pathsafe.Path) string {
	sum := sha256.Sum256([]byte(s.root.Prefix()))
	scope := "_root"
	if !dir.IsRoot() {
		scope = "d/" + dir.String()
	}
	return "snapshots/" + hex.EncodeToString(sum[:6]) + "/" + scope + ".kb"
}

// SkipSummary tells which files in scope are not in the graph: how many
// for each reason (tooLarge, overFileLimit, overByteLimit, binary, deleted), and the first
// maxSkippedExamples of them in path order. An answer stays bounded however
// many files a scope skips.
type SkipSummary struct {
	Counts   map[string]int `json:"counts"`
	Examples []Skipped      `json:"examples"`
}

const maxSkippedExamples = 20

func (st *scopeState) skipSummary() *SkipSummary {
	if len(st.skipped) == 0 {
		return nil
	}
	all := append([]Skipped(nil), st.skipped...)
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	sum := &SkipSummary{Counts: map[string]int{}}
	for _, sk := range all {
		sum.Counts[sk.Reason]++
	}
	sum.Examples = all[:min(len(all), maxSkippedExamples)]
	return sum
}

// limit names the limit that left something out of an answer, "" if none:
// the export budget when cut, else the cap on files or bytes.
func (st *scopeState) limit(cut bool) string {
	switch {
	case cut:
		return "maximumExportBytes"
	}
	return st.capLimit
}

// unresolved is the graph's unresolved wiki links, or nil when every link
// resolved.
func (st *scopeState) unresolved() *UnresolvedLinks {
	if st.graph.Unresolved.Count == 0 {
		return nil
	}
	u := st.graph.Unresolved
	return &u
}

// list returns the Markdown files in scope that the graph uses, in key
// order, and those left out. Over the file cap the graph uses the most
// recently modified files (ties by path), so the choice depends only on the
// listing; the same holds for the byte cap, which a smaller, older file may
// still fit under. Keys that are not valid logical paths are counted in invalid,
// never listed.
func (s *Service) list(ctx context.Context, dir pathsafe.Path) (files []listed, skipped []Skipped, invalid, inScope int, err error) {
	token := ""
	for {
		page, err := s.data.List(ctx, fileops.ListOptions{Prefix: dir.Key(), Token: token})
		if err != nil {
			return nil, nil, 0, 0, fileops.MapStoreError("list", dir.String(), err)
		}
		for _, o := range page.Objects {
			if !strings.HasSuffix(strings.ToLower(o.Key), ".md") {
				continue
			}
			p, err := s.root.FromKey(o.Key)
			if err != nil {
				invalid++
				continue
			}
			inScope++
			if o.Size > s.limits.MaximumFileBytes {
				skipped = append(skipped, Skipped{Path: p.String(), Reason: "tooLarge"})
				continue
			}
			files = append(files, listed{key: o.Key, path: p.String(), etag: o.ETag, size: o.Size, modified: o.LastModified})
		}
		if token = page.NextToken; token == "" {
			break
		}
	}
	var total int64
	for _, f := range files {
		total += f.size
	}
	if len(files) > s.limits.MaximumFiles || total > s.limits.MaximumTotalBytes {
		sort.SliceStable(files, func(i, j int) bool {
			a, b := files[i].modified, files[j].modified
			return a.After(b) || a.Equal(b) && files[i].key < files[j].key
		})
		var used []listed
		total = 0
		for _, f := range files {
			switch {
			case len(used) == s.limits.MaximumFiles:
				skipped = append(skipped, Skipped{Path: f.path, Reason: "overFileLimit"})
			case total+f.size > s.limits.MaximumTotalBytes:
				skipped = append(skipped, Skipped{Path: f.path, Reason: "overByteLimit"})
			default:
				used = append(used, f)
				total += f.size
			}
		}
		files = used
		sort.Slice(files, func(i, j int) bool { return files[i].key < files[j].key })
	}
	return files, skipped, invalid, inScope, nil
}

// countReason counts the skipped files of one reason.
func countReason(skipped []Skipped, reason string) int {
	n := 0
	for _, sk := range skipped {
		if sk.Reason == reason {
			n++
		}
	}
	return n
}

func fingerprint(files []listed) string {
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", f.key, f.etag)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// load makes the graph of a scope current: it lists the scope, reuses a
// snapshot whose fingerprint equals the listing's, and otherwise fetches
// only new and changed files, then saves the snapshot.
func (s *Service) load(ctx context.Context, dir pathsafe.Path, background bool) (*scopeState, error) {
	key := s.snapshotKey(dir)
	// A process without the scope's snapshot reads the stored one while it
	// lists: the listing decides whether it is used, and the read costs
	// nothing more than the listing takes.
	var early chan *snapshot
	if s.snapshots != nil && s.cached(key) == nil {
		early = make(chan *snapshot, 1)
		go func() { early <- s.readSnapshot(ctx, key) }()
	}
	files, skipped, invalid, inScope, err := s.list(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fault.New(fault.NoMarkdown, "There is no Markdown (.md) file in '%s'.", dir.String()).WithPath(dir.String())
	}
	fp := fingerprint(files)
	prior := s.cached(key)
	if prior == nil && early != nil {
		prior = <-early
	} else if (prior == nil || prior.Fingerprint != fp) && !s.storedIs(ctx, key, prior) {
		// The stored snapshot replaces this process's only when it is
		// current, or when this process has none: a save still in flight may
		// leave an older one in the store.
		if stored := s.readSnapshot(ctx, key); stored != nil && (prior == nil || stored.Fingerprint == fp) {
			prior = stored
		}
	}
	st := &scopeState{skipped: skipped, inScope: inScope}
	switch {
	case countReason(skipped, "overFileLimit") > 0:
		st.capLimit = "maximumGraphFiles"
	case countReason(skipped, "overByteLimit") > 0:
		st.capLimit = "maximumGraphBytes"
	}
	if invalid > 0 {
		st.invalid = &InvalidNames{InvalidName: invalid}
	}
	if prior != nil && prior.Fingerprint == fp {
		st.snap = SnapshotInfo{Fingerprint: fp, Reused: true}
		for _, sk := range prior.Skips {
			st.skipped = append(st.skipped, Skipped{Path: sk.Path, Reason: sk.Reason})
		}
		s.mu.Lock()
		st.graph = prior.built(nil)
		s.mu.Unlock()
		s.remember(key, prior)
		return st, nil
	}
	known := map[string]*DocInfo{}
	knownSkips := map[string]skippedFile{}
	if prior != nil {
		for _, d := range prior.Docs {
			known[d.Path] = d
		}
		for _, sk := range prior.Skips {
			knownSkips[sk.Path] = sk
		}
	}
	docs := make([]*DocInfo, len(files))
	var todo []int
	var skips []skippedFile
	for i, f := range files {
		if d, ok := known[f.path]; ok && d.ETag == f.etag {
			docs[i] = d
		} else if sk, ok := knownSkips[f.path]; ok && sk.ETag == f.etag {
			skips = append(skips, sk)
			st.skipped = append(st.skipped, Skipped{Path: sk.Path, Reason: sk.Reason})
		} else {
			todo = append(todo, i)
		}
	}
	fetched, err := s.fetch(ctx, files, todo, docs)
	if err != nil {
		return nil, err
	}
	for _, sk := range fetched {
		st.skipped = append(st.skipped, Skipped{Path: sk.Path, Reason: sk.Reason})
		if sk.Reason != "deleted" {
			skips = append(skips, sk)
		}
	}

	var kept []*DocInfo
	for _, d := range docs {
		if d != nil {
			kept = append(kept, d)
		}
	}
	if len(kept) == 0 {
		return nil, fault.New(fault.NoMarkdown, "There is no readable Markdown file in '%s'.", dir.String()).WithPath(dir.String())
	}
	sort.Slice(skips, func(i, j int) bool { return skips[i].Path < skips[j].Path })
	snap := &snapshot{Scope: dir.String(), Fingerprint: fp, Docs: kept, Skips: skips}
	var base *Graph
	if prior != nil {
		s.mu.Lock()
		snap.etag = prior.etag
		base = prior.graph
		s.mu.Unlock()
	}
	st.graph = snap.built(base)
	// The words of the fetched documents are in the graph's body index now,
	// which later graphs carry forward; the counts need not stay in memory.
	// The documents are this call's own until it remembers the snapshot.
	for _, i := range todo {
		if docs[i] != nil {
			docs[i].bodyTerms = nil
		}
	}
	s.remember(key, snap)
	switch {
	case background && prior != nil && len(todo)*20 < len(files):
		// A small change of a saved scope stays in memory: the S3 event of
		// the change refreshes the stored snapshot (Refresh saves), and a
		// new process without it only re-reads the few changed files.
	case background:
		// A tool call answers without waiting for the save: the snapshot is
		// already current in memory, and a lost save only costs a rebuild.
		s.saves.Add(1)
		go func() {
			defer s.saves.Done()
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			s.writeSnapshot(sctx, key, snap)
		}()
	default:
		s.writeSnapshot(ctx, key, snap)
	}
	st.snap = SnapshotInfo{Fingerprint: fp, Fetched: len(todo)}
	return st, nil
}

// fetchWindowBytes bounds the bytes of files being fetched and parsed at
// once, whatever the concurrency.
const fetchWindowBytes = 8 << 20

// fetch reads and parses the files at the indexes of todo, concurrently,
// into docs, and returns the files it left out, in path order.
func (s *Service) fetch(ctx context.Context, files []listed, todo []int, docs []*DocInfo) ([]skippedFile, error) {
	var mu sync.Mutex
	var firstErr error
	var skipped []skippedFile
	jobs := make(chan int)
	var wg sync.WaitGroup
	window := semaphore.NewWeighted(fetchWindowBytes)
	for range min(s.limits.FetchConcurrency, max(len(todo), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				f := files[i]
				need := min(f.size+1, fetchWindowBytes)
				if err := window.Acquire(ctx, need); err != nil {
					continue // the context ended; reported below
				}
				d, skip, err := s.fetchOne(ctx, f)
				window.Release(need)
				mu.Lock()
				switch {
				case err != nil && firstErr == nil:
					firstErr = err
				case skip != "":
					skipped = append(skipped, skippedFile{Path: f.path, ETag: f.etag, Reason: skip})
				default:
					docs[i] = d
				}
				mu.Unlock()
			}
		}()
	}
	for _, i := range todo {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fault.As(err)
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].Path < skipped[j].Path })
	return skipped, nil
}

func (s *Service) fetchOne(ctx context.Context, f listed) (*DocInfo, string, error) {
	obj, err := s.data.Get(ctx, f.key, fileops.GetOptions{Length: s.limits.MaximumFileBytes + 1})
	if err != nil {
		if errors.Is(err, fileops.ErrNotFound) {
			return nil, "deleted", nil
		}
		return nil, "", fileops.MapStoreError("read", f.path, err)
	}
	defer obj.Body.Close()
	// Read into a buffer of the listed size (one allocation), at most one
	// byte over the limit.
	b, err := readAtMost(obj.Body, min(f.size, s.limits.MaximumFileBytes)+1, s.limits.MaximumFileBytes+1)
	if err != nil {
		return nil, "", fileops.MapStoreError("read", f.path, err)
	}
	if int64(len(b)) > s.limits.MaximumFileBytes {
		return nil, "tooLarge", nil
	}
	if !fileops.IsText(b) {
		return nil, "binary", nil
	}
	return Parse(f.path, obj.Info.ETag, b), "", nil
}

// readAtMost reads r to its end or to n bytes, into a buffer of capacity
// size that grows only when r holds more than size bytes.
func readAtMost(r io.Reader, size, n int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		k, err := r.Read(b[len(b):min(int64(cap(b)), n)])
		b = b[:len(b)+k]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (s *Service) cached(key string) *snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cache[key]
}

func (s *Service) remember(key string, snap *snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache[key] = snap
}

// storedIs reports whether the stored snapshot is the one this process
// holds (the same ETag): then it is as stale as this process's, and one
// HEAD saves downloading and decoding it.
func (s *Service) storedIs(ctx context.Context, key string, snap *snapshot) bool {
	if s.snapshots == nil || snap == nil {
		return false
	}
	s.mu.Lock()
	etag := snap.etag
	s.mu.Unlock()
	if etag == "" {
		return false
	}
	info, err := s.snapshots.Head(ctx, key)
	return err == nil && info.ETag == etag
}

func (s *Service) readSnapshot(ctx context.Context, key string) *snapshot {
	if s.snapshots == nil {
		return nil
	}
	obj, err := s.snapshots.Get(ctx, key, fileops.GetOptions{Length: -1})
	if err != nil {
		return nil
	}
	defer obj.Body.Close()
	snap, err := readSnapshotFrom(obj.Body, obj.Info.Size)
	if err != nil {
		return nil
	}
	snap.etag = obj.Info.ETag
	return snap
}

// writeSnapshot saves a snapshot conditionally on the one it was built
// from, so it never replaces a snapshot someone else saved meanwhile. A
// failed save only costs the next call a rebuild.
func (s *Service) writeSnapshot(ctx context.Context, key string, snap *snapshot) {
	if s.snapshots == nil {
		return
	}
	body := encodeSnapshot(snap)
	opts := fileops.PutOptions{ContentType: "application/octet-stream", IfNoneMatch: "*"}
	if snap.etag != "" {
		opts = fileops.PutOptions{ContentType: "application/octet-stream", IfMatch: snap.etag}
	}
	if info, err := s.snapshots.Put(ctx, key, body, opts); err == nil {
		s.mu.Lock()
		snap.etag = info.ETag
		s.mu.Unlock()
	}
}

// SearchArgs are the arguments of file_context_markdown_graph_search.
type SearchArgs struct {
	Query      string
	Directory  string
	MaxResults int
}

// ScopeReport is what every graph answer says of its scope and graph.
type ScopeReport struct {
	// Truncated says something of the scope's graph is not in the answer:
	// Limit "maximumGraphFiles" or "maximumGraphBytes" when a cap left
	// documents out (FilesUsed of FilesInScope, the Markdown files in
	// scope); for an export also more pages (Next), or "maximumExportBytes"
	// when a single subject over the budget was cut.
	Truncated    bool          `json:"truncated"`
	Limit        string        `json:"limit,omitempty"`
	FilesInScope int           `json:"filesInScope"`
	FilesUsed    int           `json:"filesUsed"`
	Snapshot     SnapshotInfo  `json:"snapshot"`
	Skipped      *SkipSummary  `json:"skipped,omitempty"`
	FilesSkipped *InvalidNames `json:"filesSkipped,omitempty"`
	// UnresolvedLinks counts the wiki links that name no document in scope.
	UnresolvedLinks *UnresolvedLinks `json:"unresolvedLinks,omitempty"`
	Warnings        []string         `json:"warnings,omitempty"`
}

// report is the scope report of a loaded scope; cut says an export page
// was cut at the budget, more that pages follow.
func (st *scopeState) report(cut, more bool) ScopeReport {
	return ScopeReport{Truncated: cut || more || st.capLimit != "", Limit: st.limit(cut), FilesInScope: st.inScope, FilesUsed: st.graph.Documents,
		Snapshot: st.snap, Skipped: st.skipSummary(), FilesSkipped: st.invalid, UnresolvedLinks: st.unresolved(), Warnings: st.graph.Warnings}
}

// loadDir loads the scope of a directory argument.
func (s *Service) loadDir(ctx context.Context, directory string) (*scopeState, pathsafe.Path, error) {
	dir, err := s.root.ParseDir(directory)
	if err != nil {
		return nil, dir, err
	}
	st, err := s.load(ctx, dir, true)
	return st, dir, err
}

// SearchResult is its result.
type SearchResult struct {
	DocumentCount int     `json:"documentCount"`
	TripleCount   int     `json:"tripleCount"`
	Matches       []Match `json:"matches"`
	ScopeReport
}

// Search ranks the graph of the scope against a query.
func (s *Service) Search(ctx context.Context, a SearchArgs) (*SearchResult, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, fault.New(fault.InvalidArgument, "query must not be blank.")
	}
	if len(a.Query) > s.limits.MaximumQueryBytes {
		return nil, fault.Limit("maximumGraphQueryBytes", s.limits.MaximumQueryBytes, "query is over %d bytes.", s.limits.MaximumQueryBytes)
	}
	n := a.MaxResults
	switch {
	case n == 0:
		n = s.limits.DefaultResults
	case n < 0:
		return nil, fault.New(fault.InvalidArgument, "maxResults must be positive, got %d.", n)
	}
	n = min(n, s.limits.MaximumResults)
	st, _, err := s.loadDir(ctx, a.Directory)
	if err != nil {
		return nil, err
	}
	return &SearchResult{DocumentCount: st.graph.Documents, TripleCount: st.graph.TripleCount(), Matches: st.graph.Search(a.Query, n),
		ScopeReport: st.report(false, false)}, nil
}

// ExportArgs are the arguments of file_context_markdown_graph_export.
type ExportArgs struct {
	Format    string
	Directory string
	// Cursor is the next.cursor of the previous page; "" for the first.
	Cursor string
	// MaxBytes bounds a page (at most, and by default, the export budget).
	MaxBytes int
}

// ExportNext says how to read the next page.
type ExportNext struct {
	Cursor string `json:"cursor"`
}

// ExportResult is its result.
type ExportResult struct {
	Format        string `json:"format"`
	DocumentCount int    `json:"documentCount"`
	TripleCount   int    `json:"tripleCount"`
	Content       string `json:"content"`
	// Next is set when the export continues: pass its cursor (and the same
	// format and directory) for the next page.
	Next *ExportNext `json:"next,omitempty"`
	ScopeReport
}

// Export renders the graph of the scope a page at a time: each page is a
// valid document of its format, within MaxBytes, and the pages together
// hold the whole graph.
func (s *Service) Export(ctx context.Context, a ExportArgs) (*ExportResult, error) {
	format, ok := Formats[strings.ToLower(strings.TrimSpace(a.Format))]
	if !ok {
		return nil, fault.New(fault.InvalidArgument, "format must be one of jsonld (also JsonLd, json-ld), turtle (ttl), mermaid or dot; got %q.", a.Format)
	}
	maxBytes := a.MaxBytes
	switch {
	case maxBytes < 0:
		return nil, fault.New(fault.InvalidArgument, "maxBytes must be positive, got %d.", maxBytes)
	case maxBytes == 0 || maxBytes > s.limits.MaximumExportBytes:
		maxBytes = s.limits.MaximumExportBytes
	}
	var cur exportCursor
	if a.Cursor != "" {
		var ok bool
		if cur, ok = decodeExportCursor(a.Cursor); !ok || cur.Format != format {
			return nil, fault.New(fault.InvalidArgument, "cursor is not a cursor of a %s export; pass next.cursor of the previous page with the same format and directory.", format)
		}
	}
	st, dir, err := s.loadDir(ctx, a.Directory)
	if err != nil {
		return nil, err
	}
	if a.Cursor != "" && !strings.HasPrefix(st.snap.Fingerprint, cur.Fingerprint) {
		return nil, fault.New(fault.Conflict, "The graph of '%s' changed since this export began; export it again from the first page.", dir.String()).WithPath(dir.String())
	}
	p, err := st.graph.export(format)
	if err != nil {
		return nil, fault.New(fault.Internal, "internal error").WithCause(err)
	}
	if cur.Unit > len(p.units) {
		return nil, fault.New(fault.InvalidArgument, "cursor is past the end of the export.")
	}
	content, next := p.page(cur.Unit, maxBytes)
	// A single unit over the whole budget (a subject with a huge
	// description) is cut: that page alone is not a valid document.
	content, cutAtBudget := cut(content, s.limits.MaximumExportBytes)
	res := &ExportResult{Format: format, DocumentCount: st.graph.Documents, TripleCount: st.graph.TripleCount(), Content: content,
		ScopeReport: st.report(cutAtBudget, next < len(p.units))}
	if next < len(p.units) {
		res.Next = &ExportNext{Cursor: exportCursor{Format: format, Fingerprint: st.snap.Fingerprint[:16], Unit: next}.encode()}
	}
	return res, nil
}

// Refresh brings the snapshots that cover a changed key up to date: the
// root scope's always, and every other kept scope that contains the key.
// Keys that are not Markdown, or not under the root, are ignored.
func (s *Service) Refresh(ctx context.Context, key string) (int, error) {
	if !strings.HasSuffix(strings.ToLower(key), ".md") {
		return 0, nil
	}
	rel, ok := s.root.Rel(key)
	if !ok {
		return 0, nil
	}
	scopes := []string{""}
	if s.snapshots != nil {
		root, _ := s.root.ParseDir("")
		prefix := strings.TrimSuffix(s.snapshotKey(root), "_root.kb") + "d/"
		page, err := s.snapshots.List(ctx, fileops.ListOptions{Prefix: prefix, MaxKeys: s.limits.MaximumSnapshotsSwept})
		if err == nil {
			for _, o := range page.Objects {
				scope := strings.TrimSuffix(strings.TrimPrefix(o.Key, prefix), ".kb")
				if strings.HasPrefix(rel, scope+"/") {
					scopes = append(scopes, scope)
				}
			}
		}
	}
	refreshed := 0
	for _, sc := range scopes {
		dir, err := s.root.ParseDir(sc)
		if err != nil {
			continue
		}
		if _, err := s.load(ctx, dir, false); err != nil {
			if fault.CodeOf(err) == fault.NoMarkdown {
				continue
			}
			return refreshed, err
		}
		refreshed++
	}
	return refreshed, nil
}
