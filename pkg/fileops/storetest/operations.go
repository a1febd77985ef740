package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
	"github.com/filecontext-aws/filecontext/pkg/pathsafe"
)

// Ops is a fileops.Service over a fresh store with helpers for tests.
type Ops struct {
	*fileops.Service
	T     *testing.T
	Store fileops.Store
}

// NewOps returns a service over store under root, with the default limits
// changed by tune.
func NewOps(t *testing.T, store fileops.Store, root string, tune func(*fileops.Limits)) *Ops {
	t.Helper()
	r, err := pathsafe.NewRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	l := fileops.DefaultLimits()
	if tune != nil {
		tune(&l)
	}
	s, err := fileops.New(store, r, l)
	if err != nil {
		t.Fatal(err)
	}
	return &Ops{Service: s, T: t, Store: store}
}

// Put writes a file by its logical path, bypassing the operations.
func (o *Ops) Put(path, content string) fileops.ObjectInfo {
	o.T.Helper()
	return put(o.T, o.Store, o.Root().Prefix()+path, content)
}

// Content reads a file's bytes by its logical path, bypassing the operations.
func (o *Ops) Content(path string) string {
	o.T.Helper()
	body, _ := get(o.T, o.Store, o.Root().Prefix()+path, fileops.GetOptions{Length: -1})
	return body
}

// WantCode fails the test unless err has the code (and, when given, the
// details.reason).
func WantCode(t *testing.T, err error, code fault.Code, reason ...string) *fault.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", code)
	}
	fe := fault.As(err)
	if fe.Code != code {
		t.Fatalf("error %v, want %s", err, code)
	}
	if len(reason) > 0 && fe.Details["reason"] != reason[0] {
		t.Fatalf("reason %v, want %s (%v)", fe.Details["reason"], reason[0], err)
	}
	return fe
}

// must turns a (value, error) pair into the value, failing the test on an
// error: must(call())(t).
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// RunOperations runs every file operation over stores from newStore. The
// service uses the root prefix "tenant/a", so the suite also checks that no
// result shows it.
func RunOperations(t *testing.T, newStore NewStore, caps Capabilities) {
	ctx := context.Background()
	const root = "tenant/a"
	ops := func(t *testing.T, tune func(*fileops.Limits)) *Ops { return NewOps(t, newStore(t), root, tune) }

	runDownload(t, ops)
	runHardening(t, ops, caps)

	t.Run("read returns content, size, etag and line ending", func(t *testing.T) {
		o := ops(t, nil)
		for name, tc := range map[string]struct{ content, ending string }{
			"lf.md": {"a\nb\n", "lf"}, "crlf.md": {"a\r\nb\r\n", "crlf"}, "cr.md": {"a\rb", "cr"},
			"mixed.md": {"a\r\nb\nc\r", "mixed"}, "none.md": {"abc", "none"}, "empty.md": {"", "none"},
		} {
			info := o.Put(name, tc.content)
			r := must(o.Read(ctx, name))(t)
			if r.Path != name || r.Content != tc.content || r.Size != int64(len(tc.content)) || r.ETag != info.ETag || r.LineEnding != tc.ending {
				t.Errorf("%s: %s", name, jsonOf(r))
			}
		}
		if got := jsonOf(must(o.Read(ctx, "empty.md"))(t)); !strings.Contains(got, `"content":""`) {
			t.Errorf("empty file result %s has no empty content field", got)
		}
		if strings.Contains(jsonOf(must(o.Read(ctx, "lf.md"))(t)), "tenant") {
			t.Error("a result shows the root prefix")
		}
	})

	t.Run("read refuses missing, binary and oversized files", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.MaximumFullReadBytes = 10 })
		_, err := o.Read(ctx, "missing.md")
		fe := WantCode(t, err, fault.NotFound)
		if fe.Path != "missing.md" || fe.Message != "File 'missing.md' was not found." {
			t.Errorf("not_found = %+v", fe)
		}
		o.Put("bin.dat", "\xff\xfe\x00")
		_, err = o.Read(ctx, "bin.dat")
		WantCode(t, err, fault.BinaryContent)
		o.Put("nul.txt", "a\x00b")
		_, err = o.Read(ctx, "nul.txt")
		WantCode(t, err, fault.BinaryContent)
		o.Put("big.txt", strings.Repeat("x", 11))
		_, err = o.Read(ctx, "big.txt")
		fe = WantCode(t, err, fault.LimitExceeded)
		if fe.Details["limit"] != "maximumFullReadBytes" || fe.Details["value"] != int64(10) || !strings.Contains(fe.Message, "read_lines") {
			t.Errorf("limit error = %+v", fe)
		}
		o.Put("exact.txt", strings.Repeat("x", 10))
		must(o.Read(ctx, "exact.txt"))(t)
		for _, bad := range []string{"", "../x", "/x", "a//b", "a/"} {
			_, err = o.Read(ctx, bad)
			WantCode(t, err, fault.InvalidPath)
		}
		if strings.Contains(fe.Error(), "tenant") {
			t.Error("an error shows the root prefix")
		}
	})

	t.Run("read_lines numbers rows and keeps terminators", func(t *testing.T) {
		o := ops(t, nil)
		o.Put("m.txt", "one\r\ntwo\nthree\rfour")
		r := must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "m.txt", StartLine: 2, EndLine: 3}))(t)
		if r.Content != "2\ttwo\n3\tthree\r" || r.StartLine != 2 || r.EndLine != 3 || !r.HasMore || r.TotalLines != nil || r.Next == nil || r.Next.StartLine != 4 {
			t.Errorf("window 2-3 = %s", jsonOf(r))
		}
		r = must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "m.txt", StartLine: 1}))(t)
		if r.Content != "1\tone\r\n2\ttwo\n3\tthree\r4\tfour" || r.EndLine != 4 || r.HasMore || r.TotalLines == nil || *r.TotalLines != 4 || r.Next != nil {
			t.Errorf("whole file = %s", jsonOf(r))
		}
		r = must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "m.txt", StartLine: 3, EndLine: 99}))(t)
		if r.EndLine != 4 || r.HasMore || *r.TotalLines != 4 {
			t.Errorf("endLine is not clamped: %s", jsonOf(r))
		}
		r = must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "m.txt", StartLine: 9}))(t)
		if r.Content != "" || r.EndLine != 8 || r.HasMore || r.TotalLines == nil || *r.TotalLines != 4 {
			t.Errorf("past the end = %s", jsonOf(r))
		}
		o.Put("empty.txt", "")
		r = must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "empty.txt", StartLine: 1}))(t)
		if r.Content != "" || r.EndLine != 0 || r.HasMore || *r.TotalLines != 0 || !strings.Contains(jsonOf(r), `"content":""`) {
			t.Errorf("empty file = %s", jsonOf(r))
		}
		o.Put("t.txt", "a\nb\n")
		r = must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "t.txt", StartLine: 1}))(t)
		if *r.TotalLines != 2 || r.EndLine != 2 {
			t.Errorf("a trailing terminator made an extra line: %s", jsonOf(r))
		}
		_, err := o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "t.txt", StartLine: 0})
		WantCode(t, err, fault.InvalidArgument)
		_, err = o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "t.txt", StartLine: 3, EndLine: 2})
		WantCode(t, err, fault.InvalidArgument)
		_, err = o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "nope.txt", StartLine: 1})
		WantCode(t, err, fault.NotFound)
		o.Put("bin.txt", "ok\n\xff\n")
		_, err = o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "bin.txt", StartLine: 1})
		WantCode(t, err, fault.BinaryContent)
	})

	t.Run("windows stop at the line count and the byte budget", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.DefaultLineCount, l.MaximumLineCount, l.MaximumWindowBytes = 3, 5, 20 })
		var b strings.Builder
		for i := 1; i <= 10; i++ {
			fmt.Fprintf(&b, "line %02d\n", i) // 8 bytes a line
		}
		o.Put("ten.txt", b.String())
		r := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "ten.txt"}))(t)
		if r.Content != "line 01\nline 02\n" || r.EndLine != 2 || !r.HasMore || r.Next.StartLine != 3 {
			t.Errorf("the byte budget did not stop the window: %s", jsonOf(r))
		}
		o2 := ops(t, func(l *fileops.Limits) { l.DefaultLineCount, l.MaximumLineCount = 3, 5 })
		o2.Put("ten.txt", b.String())
		r = must(o2.ReadRange(ctx, fileops.ReadRangeArgs{Path: "ten.txt"}))(t)
		if r.EndLine != 3 || r.Next.StartLine != 4 {
			t.Errorf("default line count: %s", jsonOf(r))
		}
		r = must(o2.ReadRange(ctx, fileops.ReadRangeArgs{Path: "ten.txt", LineCount: 50}))(t)
		if r.EndLine != 5 || !r.HasMore {
			t.Errorf("maximum line count: %s", jsonOf(r))
		}
		o.Put("long.txt", "short\n"+strings.Repeat("y", 100)+"\nafter\n")
		r = must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "long.txt"}))(t)
		if r.Content != "short\n" || !r.HasMore || r.Next.StartLine != 2 {
			t.Errorf("window before a long line: %s", jsonOf(r))
		}
		_, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "long.txt", StartLine: 2})
		fe := WantCode(t, err, fault.LimitExceeded)
		if fe.Details["limit"] != "maximumWindowBytes" {
			t.Errorf("details = %v", fe.Details)
		}
		_, err = o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "long.txt", Cursor: r.Next.Cursor})
		WantCode(t, err, fault.LimitExceeded)
		_, err = o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "long.txt", LineCount: -1})
		WantCode(t, err, fault.InvalidArgument)
		_, err = o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "long.txt", StartLine: -2})
		WantCode(t, err, fault.InvalidArgument)
	})

	t.Run("read_range pages forward by cursor and backward by line numbers", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.DefaultLineCount = 4 })
		var b strings.Builder
		for i := 1; i <= 10; i++ {
			fmt.Fprintf(&b, "l%d\r\n", i)
		}
		o.Put("p.txt", b.String())
		var got strings.Builder
		args := fileops.ReadRangeArgs{Path: "p.txt"}
		windows := 0
		for {
			r := must(o.ReadRange(ctx, args))(t)
			windows++
			got.WriteString(r.Content)
			if r.CursorStale {
				t.Fatal("a fresh cursor was stale")
			}
			if !r.HasMore {
				if *r.TotalLines != 10 || r.EndLine != 10 {
					t.Errorf("last window = %s", jsonOf(r))
				}
				break
			}
			args = fileops.ReadRangeArgs{Path: "p.txt", StartLine: r.Next.StartLine, Cursor: r.Next.Cursor}
		}
		if got.String() != b.String() || windows != 3 {
			t.Errorf("paging gave %q in %d windows", got.String(), windows)
		}
		// Backward: from a window at 7, the window before is startLine 7-4.
		r := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt", StartLine: 7}))(t)
		back := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt", StartLine: r.StartLine - 4, LineCount: 4}))(t)
		if back.Content != "l3\r\nl4\r\nl5\r\nl6\r\n" || back.EndLine != r.StartLine-1 {
			t.Errorf("backward window = %s", jsonOf(back))
		}
		// A cursor alone implies its line.
		first := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt"}))(t)
		r = must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt", Cursor: first.Next.Cursor}))(t)
		if r.StartLine != 5 || r.Content != "l5\r\nl6\r\nl7\r\nl8\r\n" {
			t.Errorf("cursor-only window = %s", jsonOf(r))
		}
		_, err := o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt", StartLine: 2, Cursor: first.Next.Cursor})
		WantCode(t, err, fault.InvalidArgument)
		_, err = o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "p.txt", Cursor: "bogus"})
		WantCode(t, err, fault.InvalidArgument)
	})

	t.Run("a stale cursor falls back to scanning and says so", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.DefaultLineCount = 2 })
		o.Put("s.txt", "a\nb\nc\nd\n")
		r := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "s.txt"}))(t)
		o.Put("s.txt", "a much longer first line\nB\nC\nD\nE\n")
		r2 := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "s.txt", Cursor: r.Next.Cursor}))(t)
		if !r2.CursorStale || r2.StartLine != 3 || r2.Content != "C\nD\n" {
			t.Errorf("stale cursor window = %s", jsonOf(r2))
		}
	})

	t.Run("ls lists direct children, directories first, in byte order", func(t *testing.T) {
		o := ops(t, nil)
		for _, p := range []string{"b.md", "a.md", "Z.md", "docs/x.md", "docs/sub/y.md", "assets/logo.png", "é.md"} {
			o.Put(p, p)
		}
		o.Put("empty-dir/", "")
		r := must(o.Ls(ctx, fileops.LsArgs{}))(t)
		want := `[{"name":"assets","type":"directory"},{"name":"docs","type":"directory"},{"name":"empty-dir","type":"directory"},{"name":"Z.md","type":"file"},{"name":"a.md","type":"file"},{"name":"b.md","type":"file"},{"name":"é.md","type":"file"}]`
		if jsonOf(r.Entries) != want || r.Truncated || r.Directory != "" {
			t.Errorf("root = %s", jsonOf(r))
		}
		r = must(o.Ls(ctx, fileops.LsArgs{Directory: "docs/"}))(t)
		if jsonOf(r.Entries) != `[{"name":"sub","type":"directory"},{"name":"x.md","type":"file"}]` || r.Directory != "docs" {
			t.Errorf("docs = %s", jsonOf(r))
		}
		r = must(o.Ls(ctx, fileops.LsArgs{Directory: "empty-dir"}))(t)
		if jsonOf(r) != `{"directory":"empty-dir","entries":[],"truncated":false}` {
			t.Errorf("folder marker directory = %s", jsonOf(r))
		}
		r = must(o.Ls(ctx, fileops.LsArgs{Directory: "missing"}))(t)
		if jsonOf(r.Entries) != `[]` {
			t.Errorf("missing = %s", jsonOf(r))
		}
		r = must(o.Ls(ctx, fileops.LsArgs{GlobPattern: "*.MD"}))(t)
		if jsonOf(r.Entries) != `[{"name":"Z.md","type":"file"},{"name":"a.md","type":"file"},{"name":"b.md","type":"file"},{"name":"é.md","type":"file"}]` {
			t.Errorf("glob = %s", jsonOf(r))
		}
		_, err := o.Ls(ctx, fileops.LsArgs{Directory: "../x"})
		WantCode(t, err, fault.InvalidPath)
		_, err = o.Ls(ctx, fileops.LsArgs{GlobPattern: "[abc"})
		WantCode(t, err, fault.InvalidArgument)
	})

	t.Run("ls truncates at the entry limit", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.MaximumListEntries = 3 })
		for _, p := range []string{"d1/x", "d2/x", "a", "b", "c"} {
			o.Put(p, "x")
		}
		r := must(o.Ls(ctx, fileops.LsArgs{}))(t)
		if len(r.Entries) != 3 || !r.Truncated {
			t.Errorf("truncation = %s", jsonOf(r))
		}
		o2 := ops(t, func(l *fileops.Limits) { l.MaximumListEntries = 3 })
		for _, p := range []string{"a", "b", "c"} {
			o2.Put(p, "x")
		}
		if r := must(o2.Ls(ctx, fileops.LsArgs{}))(t); r.Truncated || len(r.Entries) != 3 {
			t.Errorf("exactly the limit = %s", jsonOf(r))
		}
	})

	if caps.FileAndPrefix {
		t.Run("a name that is a file and a prefix appears twice", func(t *testing.T) {
			o := ops(t, nil)
			o.Put("both", "file")
			o.Put("both/child.md", "child")
			r := must(o.Ls(ctx, fileops.LsArgs{}))(t)
			if jsonOf(r.Entries) != `[{"name":"both","type":"directory"},{"name":"both","type":"file"}]` {
				t.Errorf("entries = %s", jsonOf(r))
			}
			info := must(o.Info(ctx, "both"))(t)
			if info.Status != "found" {
				t.Errorf("info = %s", jsonOf(info))
			}
		})
	}

	t.Run("info tells found, directory and not_found", func(t *testing.T) {
		o := ops(t, nil)
		put := o.Put("docs/notes.txt", "hello")
		r := must(o.Info(ctx, "docs/notes.txt"))(t)
		if r.Status != "found" || r.Path != "docs/notes.txt" || r.Info == nil || r.Info.Size != 5 || r.Info.ETag != put.ETag ||
			r.Info.Type != "file" || !strings.HasPrefix(r.Info.ContentType, "text/plain") || r.Info.LastModified.IsZero() {
			t.Errorf("found = %s", jsonOf(r))
		}
		if r := must(o.Info(ctx, "docs"))(t); jsonOf(r) != `{"status":"directory","path":"docs"}` {
			t.Errorf("directory = %s", jsonOf(r))
		}
		if r := must(o.Info(ctx, "docs/"))(t); r.Status != "directory" {
			t.Errorf("directory with slash = %s", jsonOf(r))
		}
		if r := must(o.Info(ctx, "missing.txt"))(t); jsonOf(r) != `{"status":"not_found","path":"missing.txt"}` {
			t.Errorf("not_found = %s", jsonOf(r))
		}
		if r := must(o.Info(ctx, ""))(t); r.Status != "directory" {
			t.Errorf("root = %s", jsonOf(r))
		}
		_, err := o.Info(ctx, "a/../b")
		WantCode(t, err, fault.InvalidPath)
	})

	t.Run("grep finds lines by the line rule", func(t *testing.T) {
		o := ops(t, nil)
		o.Put("docs/a.md", "alpha\r\nbeta match\r\ngamma\r\n")
		o.Put("docs/b.md", "no\nMATCH here\nmatch\n")
		o.Put("docs/sub/c.md", "x match")
		o.Put("docs/sub/c.txt", "match")
		o.Put("other/d.md", "match")
		r := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "match$", Directory: "docs"}))(t)
		want := `[{"fileName":"docs/a.md","snippet":"beta match","matchingLines":[{"lineNumber":2,"line":"beta match\r\n"}]},` +
			`{"fileName":"docs/b.md","snippet":"match","matchingLines":[{"lineNumber":3,"line":"match\n"}]},` +
			`{"fileName":"docs/sub/c.md","snippet":"x match","matchingLines":[{"lineNumber":1,"line":"x match"}]},` +
			`{"fileName":"docs/sub/c.txt","snippet":"match","matchingLines":[{"lineNumber":1,"line":"match"}]}]`
		if jsonOf(r.Results) != want || r.Truncated || r.FilesScanned != 4 || r.Limit != "" {
			t.Errorf("grep = %s", jsonOf(r))
		}
		r = must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "match", Directory: "docs", GlobPattern: "**/*.md", CaseSensitive: true}))(t)
		if len(r.Results) != 3 || jsonOf(r.Results[1].MatchingLines) != `[{"lineNumber":3,"line":"match\n"}]` {
			t.Errorf("case-sensitive glob grep = %s", jsonOf(r))
		}
		r = must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "MATCH", GlobPattern: "*.md", Directory: "docs/"}))(t)
		if len(r.Results) != 2 || r.FilesScanned != 2 {
			t.Errorf("single-segment glob = %s", jsonOf(r))
		}
		r = must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "match", GlobPattern: "{docs/a,other/*}.md"}))(t)
		if len(r.Results) != 2 || r.Results[0].FileName != "docs/a.md" || r.Results[1].FileName != "other/d.md" {
			t.Errorf("brace glob = %s", jsonOf(r))
		}
		r = must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "nothing-matches-this"}))(t)
		if jsonOf(r.Results) != `[]` || r.FilesScanned != 5 {
			t.Errorf("no matches = %s", jsonOf(r))
		}
		_, err := o.Grep(ctx, fileops.GrepArgs{RegexPattern: "(?<=a)b"})
		fe := WantCode(t, err, fault.InvalidPattern)
		if !strings.Contains(fe.Message, "RE2") || !strings.Contains(fe.Message, "lookaround") {
			t.Errorf("invalid pattern message = %q", fe.Message)
		}
		_, err = o.Grep(ctx, fileops.GrepArgs{RegexPattern: ""})
		WantCode(t, err, fault.InvalidArgument)
		_, err = o.Grep(ctx, fileops.GrepArgs{RegexPattern: "x", Directory: "/abs"})
		WantCode(t, err, fault.InvalidPath)
	})

	t.Run("grep snippets, line limits and skipped files", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.MaximumGrepLinesPerFile, l.MaximumGrepFileBytes = 2, 400 })
		o.Put("long.txt", strings.Repeat("é", 80)+"NEEDLE"+strings.Repeat("ü", 80)+"\n")
		o.Put("many.txt", "needle 1\nneedle 2\nneedle 3\n")
		o.Put("big.txt", strings.Repeat("needle\n", 60))
		o.Put("bin.dat", "needle\x00")
		o.Put("bad.txt", "needle \xff")
		r := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "needle"}))(t)
		if len(r.Results) != 2 || r.FilesScanned != 2 || r.FilesSkipped.TooLarge != 1 || r.FilesSkipped.Binary != 2 || r.Truncated {
			t.Fatalf("grep = %s", jsonOf(r))
		}
		if want := strings.Repeat("é", 50) + "NEEDLE" + strings.Repeat("ü", 50); r.Results[0].Snippet != want {
			t.Errorf("snippet = %q", r.Results[0].Snippet)
		}
		if m := r.Results[1]; !m.Truncated || len(m.MatchingLines) != 2 || m.MatchingLines[1].LineNumber != 2 {
			t.Errorf("per-file line limit = %s", jsonOf(m))
		}
	})

	t.Run("grep stops at the file limits, by name order", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) {
			l.MaximumGrepFilesScanned, l.MaximumGrepFilesMatched, l.GrepConcurrency = 6, 3, 3
		})
		for i := range 10 {
			body := "nothing"
			if i%2 == 0 {
				body = "hit"
			}
			o.Put(fmt.Sprintf("f%02d.txt", i), body)
		}
		r := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "hit"}))(t)
		if !r.Truncated || r.Limit != "maximumGrepFilesMatched" || len(r.Results) != 3 || r.Results[2].FileName != "f04.txt" || r.FilesScanned != 5 {
			t.Errorf("matched-files limit = %s", jsonOf(r))
		}
		o = NewOps(t, o.Store, root, func(l *fileops.Limits) { l.MaximumGrepFilesScanned, l.GrepConcurrency = 6, 4 })
		r = must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "nothing"}))(t)
		if !r.Truncated || r.Limit != "maximumGrepFilesScanned" || r.FilesScanned != 6 || len(r.Results) != 3 || r.Results[2].FileName != "f05.txt" {
			t.Errorf("scanned-files limit = %s", jsonOf(r))
		}
		for range 3 {
			again := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "nothing"}))(t)
			if jsonOf(again) != jsonOf(r) {
				t.Fatalf("grep is not deterministic: %s vs %s", jsonOf(again), jsonOf(r))
			}
		}
	})

	t.Run("write creates, refuses to clobber, overwrites on request", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.MaximumWriteBytes = 20 })
		a := must(o.Write(ctx, fileops.WriteArgs{FileName: "new/a.md", Content: "v1\n"}))(t)
		if a.Status != "applied" || a.Message != "File 'new/a.md' written." || a.Path != "new/a.md" || a.ETag == "" || o.Content("new/a.md") != "v1\n" {
			t.Errorf("create = %s", jsonOf(a))
		}
		_, err := o.Write(ctx, fileops.WriteArgs{FileName: "new/a.md", Content: "v2\n"})
		WantCode(t, err, fault.AlreadyExists)
		_, err = o.Write(ctx, fileops.WriteArgs{FileName: "new/a.md", Content: "v2\n", Overwrite: true, ExpectedETag: `"0000"`})
		WantCode(t, err, fault.Conflict)
		b := must(o.Write(ctx, fileops.WriteArgs{FileName: "new/a.md", Content: "v2\n", Overwrite: true, ExpectedETag: strings.Trim(a.ETag, `"`)}))(t)
		if o.Content("new/a.md") != "v2\n" || b.ETag == a.ETag {
			t.Errorf("overwrite = %s", jsonOf(b))
		}
		_, err = o.Write(ctx, fileops.WriteArgs{FileName: "x.md", Content: "x", ExpectedETag: a.ETag})
		WantCode(t, err, fault.Conflict)
		_, err = o.Write(ctx, fileops.WriteArgs{FileName: "x.md", Content: strings.Repeat("x", 21)})
		fe := WantCode(t, err, fault.LimitExceeded)
		if fe.Details["limit"] != "maximumWriteBytes" {
			t.Errorf("details = %v", fe.Details)
		}
		_, err = o.Write(ctx, fileops.WriteArgs{FileName: "../x.md", Content: "x"})
		WantCode(t, err, fault.InvalidPath)
		must(o.Write(ctx, fileops.WriteArgs{FileName: "empty.md", Content: ""}))(t)
		if r := must(o.Read(ctx, "empty.md"))(t); r.Content != "" {
			t.Errorf("empty write read back %q", r.Content)
		}
	})

	t.Run("delete removes a file and checks its etag", func(t *testing.T) {
		o := ops(t, nil)
		info := o.Put("d.md", "x")
		_, err := o.Delete(ctx, fileops.DeleteArgs{FileName: "d.md", ExpectedETag: `"stale"`})
		WantCode(t, err, fault.Conflict)
		a := must(o.Delete(ctx, fileops.DeleteArgs{FileName: "d.md", ExpectedETag: info.ETag}))(t)
		if a.Message != "File 'd.md' deleted." {
			t.Errorf("delete = %s", jsonOf(a))
		}
		if r := must(o.Info(ctx, "d.md"))(t); r.Status != "not_found" {
			t.Errorf("after delete: %s", jsonOf(r))
		}
		_, err = o.Delete(ctx, fileops.DeleteArgs{FileName: "d.md"})
		WantCode(t, err, fault.NotFound)
	})

	t.Run("replace", func(t *testing.T) {
		o := ops(t, nil)
		o.Put("r.md", "one two one\n")
		_, err := o.Replace(ctx, fileops.ReplaceArgs{FileName: "r.md", OldString: "one", NewString: "1"})
		fe := WantCode(t, err, fault.EditRejected, "not_unique")
		if fe.Details["count"] != 2 {
			t.Errorf("count = %v", fe.Details["count"])
		}
		_, err = o.Replace(ctx, fileops.ReplaceArgs{FileName: "r.md", OldString: "three", NewString: "3"})
		WantCode(t, err, fault.EditRejected, "no_match")
		_, err = o.Replace(ctx, fileops.ReplaceArgs{FileName: "r.md", OldString: "", NewString: "3"})
		WantCode(t, err, fault.EditRejected, "empty_old_string")
		if o.Content("r.md") != "one two one\n" {
			t.Fatal("a rejected replace changed the file")
		}
		a := must(o.Replace(ctx, fileops.ReplaceArgs{FileName: "r.md", OldString: "two", NewString: `$1 \n ${x}`}))(t)
		if a.Message != "Replaced 1 occurrence(s) in 'r.md'." || o.Content("r.md") != "one $1 \\n ${x} one\n" {
			t.Errorf("literal replace = %s -> %q", jsonOf(a), o.Content("r.md"))
		}
		a = must(o.Replace(ctx, fileops.ReplaceArgs{FileName: "r.md", OldString: "one", NewString: "1", ReplaceAll: true}))(t)
		if a.Message != "Replaced 2 occurrence(s) in 'r.md'." || o.Content("r.md") != "1 $1 \\n ${x} 1\n" {
			t.Errorf("replaceAll = %s -> %q", jsonOf(a), o.Content("r.md"))
		}
		o.Put("crlf.md", "alpha\r\nbeta\r\ngamma\r\n")
		must(o.Replace(ctx, fileops.ReplaceArgs{FileName: "crlf.md", OldString: "alpha\nbeta", NewString: "A\nB\nC"}))(t)
		if got := o.Content("crlf.md"); got != "A\r\nB\r\nC\r\ngamma\r\n" {
			t.Errorf("CRLF file became %q", got)
		}
		_, err = o.Replace(ctx, fileops.ReplaceArgs{FileName: "missing.md", OldString: "a"})
		WantCode(t, err, fault.NotFound)
		info := o.Put("e.md", "x")
		_, err = o.Replace(ctx, fileops.ReplaceArgs{FileName: "e.md", OldString: "x", ExpectedETag: info.ETag + "0"})
		WantCode(t, err, fault.Conflict)
	})

	t.Run("replace_lines", func(t *testing.T) {
		o := ops(t, nil)
		orig := "l1\nl2\r\nl3\nl4\n"
		o.Put("e.md", orig)
		str := func(s string) *string { return &s }
		a := must(o.ReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "e.md", Edits: []fileops.LineEdit{
			{LineNumber: 3, NewLine: "three", ExpectedLine: str("l3")},
			{LineNumber: 1, NewLine: ""},
			{LineNumber: 2, NewLine: "two", ExpectedLine: str("l2")},
			{LineNumber: 4, NewLine: "four\nfour-b\n"},
		}}))(t)
		if a.Message != "Replaced 4 line(s) in 'e.md'." || o.Content("e.md") != "two\r\nthree\nfour\nfour-b\n" {
			t.Errorf("edits = %s -> %q", jsonOf(a), o.Content("e.md"))
		}
		o.Put("e.md", orig)
		for _, tc := range []struct {
			reason string
			edits  []fileops.LineEdit
		}{
			{"out_of_range", []fileops.LineEdit{{LineNumber: 1, NewLine: "x"}, {LineNumber: 5, NewLine: "x"}}},
			{"out_of_range", []fileops.LineEdit{{LineNumber: 0, NewLine: "x"}}},
			{"duplicate_line", []fileops.LineEdit{{LineNumber: 2, NewLine: "x"}, {LineNumber: 2, NewLine: "y"}}},
			{"expected_line_mismatch", []fileops.LineEdit{{LineNumber: 1, NewLine: "x"}, {LineNumber: 2, NewLine: "y", ExpectedLine: str("not l2")}}},
		} {
			_, err := o.ReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "e.md", Edits: tc.edits})
			WantCode(t, err, fault.EditRejected, tc.reason)
			if o.Content("e.md") != orig {
				t.Fatalf("a rejected edit (%s) changed the file", tc.reason)
			}
		}
		_, err := o.ReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "e.md"})
		WantCode(t, err, fault.InvalidArgument)
		// A row from read_lines, after its tab, is a valid new_line.
		r := must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "e.md", StartLine: 2, EndLine: 2}))(t)
		row := strings.SplitN(r.Content, "\t", 2)[1]
		must(o.ReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "e.md", Edits: []fileops.LineEdit{{LineNumber: 2, NewLine: row, ExpectedLine: str("l2")}}}))(t)
		if o.Content("e.md") != orig {
			t.Errorf("writing a row back changed the file: %q", o.Content("e.md"))
		}
	})

	t.Run("an apply never overwrites a file that changed", func(t *testing.T) {
		o := ops(t, nil)
		o.Put("c.md", "base\n")
		change := must(o.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "c.md", OldString: "base", NewString: "mine"}))(t)
		o.Put("c.md", "theirs\n")
		_, err := o.Apply(ctx, change)
		WantCode(t, err, fault.Conflict)
		if o.Content("c.md") != "theirs\n" {
			t.Errorf("the other edit was lost: %q", o.Content("c.md"))
		}
		create := must(o.PlanWrite(ctx, fileops.WriteArgs{FileName: "n.md", Content: "mine"}))(t)
		o.Put("n.md", "theirs")
		_, err = o.Apply(ctx, create)
		WantCode(t, err, fault.Conflict)
		if o.Content("n.md") != "theirs" {
			t.Error("a create overwrote a file made in between")
		}
		del := must(o.PlanDelete(ctx, fileops.DeleteArgs{FileName: "n.md"}))(t)
		o.Put("n.md", "changed again")
		_, err = o.Apply(ctx, del)
		WantCode(t, err, fault.Conflict)
		upd := must(o.PlanWrite(ctx, fileops.WriteArgs{FileName: "n.md", Content: "x", Overwrite: true}))(t)
		must(o.Delete(ctx, fileops.DeleteArgs{FileName: "n.md"}))(t)
		_, err = o.Apply(ctx, upd)
		WantCode(t, err, fault.Conflict)
	})

	t.Run("eight concurrent writers and readers on eight files", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.DefaultLineCount = 10 })
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("c/%d.txt", i)
				var b strings.Builder
				for n := range 50 {
					fmt.Fprintf(&b, "file %d line %d\n", i, n+1)
				}
				if _, err := o.Write(ctx, fileops.WriteArgs{FileName: name, Content: b.String()}); err != nil {
					errs <- err
					return
				}
				args := fileops.ReadRangeArgs{Path: name}
				for n := 0; ; n++ {
					r, err := o.ReadRange(ctx, args)
					if err != nil {
						errs <- err
						return
					}
					if want := fmt.Sprintf("file %d line %d\n", i, n*10+1); !strings.HasPrefix(r.Content, want) {
						errs <- fmt.Errorf("%s window %d starts %q", name, n, r.Content[:min(20, len(r.Content))])
						return
					}
					if !r.HasMore {
						break
					}
					args = fileops.ReadRangeArgs{Path: name, Cursor: r.Next.Cursor}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})

	t.Run("keys live under the root prefix", func(t *testing.T) {
		o := ops(t, nil)
		must(o.Write(ctx, fileops.WriteArgs{FileName: "p.md", Content: "x"}))(t)
		if _, err := o.Store.Head(ctx, "tenant/a/p.md"); err != nil {
			t.Errorf("the key is not under the prefix: %v", err)
		}
		put(t, o.Store, "tenant/ab/sibling.md", "sibling")
		r := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "sibling"}))(t)
		if len(r.Results) != 0 {
			t.Errorf("grep reached a sibling prefix: %s", jsonOf(r))
		}
	})
}

// runDownload checks byte pages, their encodings and the ETag guard.
func runDownload(t *testing.T, ops func(t *testing.T, tune func(*fileops.Limits)) *Ops) {
	ctx := context.Background()
	t.Run("download pages text, binary and multi-byte characters", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.DefaultDownloadBytes, l.MaximumDownloadBytes = 4, 6 })
		info := o.Put("t.txt", "héllo wörld")
		r := must(o.Download(ctx, fileops.DownloadArgs{Path: "t.txt"}))(t)
		if r.Encoding != "utf8" || *r.Text != "hél" || r.BytesRead != 4 || !r.HasMore || *r.NextOffsetBytes != 4 || r.Size != 13 || r.ETag != info.ETag {
			t.Errorf("first page = %s", jsonOf(r))
		}
		// A page that would end inside 'é' is cut before it.
		r = must(o.Download(ctx, fileops.DownloadArgs{Path: "t.txt", OffsetBytes: 0, MaxBytes: 2}))(t)
		if *r.Text != "h" || r.BytesRead != 1 || *r.NextOffsetBytes != 1 {
			t.Errorf("cut page = %s", jsonOf(r))
		}
		var all strings.Builder
		for off := int64(0); ; {
			r := must(o.Download(ctx, fileops.DownloadArgs{Path: "t.txt", OffsetBytes: off, ExpectedETag: info.ETag}))(t)
			all.WriteString(*r.Text)
			if !r.HasMore {
				if r.NextOffsetBytes != nil {
					t.Error("the last page has a next offset")
				}
				break
			}
			off = *r.NextOffsetBytes
		}
		if all.String() != "héllo wörld" {
			t.Errorf("pages joined = %q", all.String())
		}
		r = must(o.Download(ctx, fileops.DownloadArgs{Path: "t.txt", MaxBytes: 100, Encoding: "base64"}))(t)
		if r.Encoding != "base64" || *r.Base64 != "aMOpbGxv" || r.Text != nil {
			t.Errorf("base64 page = %s", jsonOf(r))
		}
		o.Put("b.bin", "\xff\xfe\x00\x01")
		r = must(o.Download(ctx, fileops.DownloadArgs{Path: "b.bin"}))(t)
		if r.Encoding != "base64" || *r.Base64 != "//4AAQ==" {
			t.Errorf("binary page = %s", jsonOf(r))
		}
		_, err := o.Download(ctx, fileops.DownloadArgs{Path: "b.bin", Encoding: "utf8"})
		WantCode(t, err, fault.BinaryContent)
		r = must(o.Download(ctx, fileops.DownloadArgs{Path: "b.bin", OffsetBytes: 99}))(t)
		if r.BytesRead != 0 || r.HasMore || *r.Text != "" {
			t.Errorf("past the end = %s", jsonOf(r))
		}
		o.Put("e.txt", "")
		if r := must(o.Download(ctx, fileops.DownloadArgs{Path: "e.txt"}))(t); r.BytesRead != 0 || r.HasMore || r.Size != 0 {
			t.Errorf("empty = %s", jsonOf(r))
		}
	})
	t.Run("download refuses bad arguments and changed files", func(t *testing.T) {
		o := ops(t, nil)
		info := o.Put("c.txt", "one")
		for _, a := range []fileops.DownloadArgs{{Path: "c.txt", OffsetBytes: -1}, {Path: "c.txt", MaxBytes: -5}, {Path: "c.txt", Encoding: "latin1"}} {
			_, err := o.Download(ctx, a)
			WantCode(t, err, fault.InvalidArgument)
		}
		_, err := o.Download(ctx, fileops.DownloadArgs{Path: "../c.txt"})
		WantCode(t, err, fault.InvalidPath)
		_, err = o.Download(ctx, fileops.DownloadArgs{Path: "missing.txt"})
		WantCode(t, err, fault.NotFound)
		o.Put("c.txt", "two!")
		_, err = o.Download(ctx, fileops.DownloadArgs{Path: "c.txt", OffsetBytes: 1, ExpectedETag: info.ETag})
		WantCode(t, err, fault.Conflict)
	})
}
