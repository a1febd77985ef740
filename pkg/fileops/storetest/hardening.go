package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/filecontext-aws/filecontext/pkg/fault"
	"github.com/filecontext-aws/filecontext/pkg/fileops"
)

// runHardening holds the cases that adversarial and real-client testing
// found: each one failed before its fix.
func runHardening(t *testing.T, ops func(t *testing.T, tune func(*fileops.Limits)) *Ops, caps Capabilities) {
	ctx := context.Background()

	t.Run("paging by cursor and by startLine gives the file back when lines straddle the byte budget", func(t *testing.T) {
		// The reported case: 40 lines of 9,006 bytes against the default
		// 256 KiB budget; line 30 starts at byte 261,174.
		var report strings.Builder
		for i := 1; i <= 40; i++ {
			fmt.Fprintf(&report, "L%03d:%s\n", i, strings.Repeat("x", 9000))
		}
		// Lines over the 64 KiB read buffer, as on S3.
		var wide strings.Builder
		for i := 1; i <= 9; i++ {
			fmt.Fprintf(&wide, "W%d:%s\r\n", i, strings.Repeat("é", 35000))
		}
		small := func(l *fileops.Limits) { l.MaximumWindowBytes = 40 }
		cases := []struct {
			name    string
			tune    func(*fileops.Limits)
			content string
		}{
			{"the reported 40 lines of 9,006 bytes", nil, report.String()},
			{"lines over the read buffer", nil, wide.String()},
			{"ascii \\n", small, straddling("line %d ", "\n", "ab")},
			{"ascii \\r\\n", small, straddling("line %d ", "\r\n", "ab")},
			{"lone \\r", small, straddling("line %d ", "\r", "ab")},
			{"multi-byte text", small, straddling("zeile %d ", "\n", "é€")},
			{"four-byte characters", small, straddling("%d", "\n", "𝄞")},
			{"mixed terminators, no final terminator", small, straddling("m%d ", "\r\n", "ü") + "\rlast\nend"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				o := ops(t, tc.tune)
				o.Put("f.txt", tc.content)
				byCursor, byLine := pageAll(t, o, true), pageAll(t, o, false)
				if byCursor != tc.content {
					t.Errorf("paging by cursor gave %d bytes, want the file's %d (first difference at %d)", len(byCursor), len(tc.content), firstDiff(byCursor, tc.content))
				}
				if byLine != tc.content {
					t.Errorf("paging by startLine gave %d bytes, want the file's %d (first difference at %d)", len(byLine), len(tc.content), firstDiff(byLine, tc.content))
				}
				// read_lines issues the same cursors: each one must lead
				// read_range to the line it names.
				r := must(o.ReadLines(ctx, fileops.ReadLinesArgs{FileName: "f.txt", StartLine: 1}))(t)
				if r.HasMore {
					next := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "f.txt", Cursor: r.Next.Cursor}))(t)
					want := must(o.ReadRange(ctx, fileops.ReadRangeArgs{Path: "f.txt", StartLine: r.Next.StartLine}))(t)
					if next.StartLine != r.Next.StartLine || next.Content != want.Content || next.CursorStale {
						t.Errorf("read_lines cursor for line %d led to %s, want %s", r.Next.StartLine, jsonOf(next), jsonOf(want))
					}
				}
			})
		}
	})

	t.Run("replace and replace_lines check the size of their result before building it", func(t *testing.T) {
		o := ops(t, func(l *fileops.Limits) { l.MaximumWriteBytes = 10_000 })
		o.Put("a.txt", strings.Repeat("a", 5000))
		_, err := o.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "a.txt", OldString: "a", NewString: strings.Repeat("X", 200), ReplaceAll: true})
		fe := WantCode(t, err, fault.LimitExceeded)
		if fe.Details["limit"] != "maximumWriteBytes" || fmt.Sprint(fe.Details["size"]) != "1000000" {
			t.Errorf("details = %v", fe.Details)
		}
		_, err = o.Replace(ctx, fileops.ReplaceArgs{FileName: "a.txt", OldString: "a", NewString: "XXX", ReplaceAll: true})
		fe = WantCode(t, err, fault.LimitExceeded)
		if fmt.Sprint(fe.Details["size"]) != "15000" {
			t.Errorf("details = %v", fe.Details)
		}
		if o.Content("a.txt") != strings.Repeat("a", 5000) {
			t.Error("a refused replace changed the file")
		}
		// Exactly at the limit is allowed.
		if _, err := o.PlanReplace(ctx, fileops.ReplaceArgs{FileName: "a.txt", OldString: strings.Repeat("a", 5000), NewString: strings.Repeat("a", 10_000)}); err != nil {
			t.Errorf("a result of exactly the limit was refused: %v", err)
		}
		o.Put("l.txt", "one\ntwo\nthree\n")
		_, err = o.PlanReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "l.txt", Edits: []fileops.LineEdit{
			{LineNumber: 1, NewLine: strings.Repeat("y", 6000)}, {LineNumber: 3, NewLine: strings.Repeat("z", 4000) + "\n"}}})
		fe = WantCode(t, err, fault.LimitExceeded)
		if want := 6000 + 1 + 4 + 4001; fmt.Sprint(fe.Details["size"]) != fmt.Sprint(want) {
			t.Errorf("replace_lines size = %v, want %d", fe.Details["size"], want)
		}
		c := must(o.PlanReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "l.txt", Edits: []fileops.LineEdit{
			{LineNumber: 1, NewLine: "ONE"}, {LineNumber: 2, NewLine: ""}, {LineNumber: 3, NewLine: "3\r\n"}}}))(t)
		if string(c.Content) != "ONE\n3\r\n" {
			t.Errorf("replace_lines content = %q", c.Content)
		}
	})

	t.Run("expected_line ignores terminators and a mismatch never shows the line", func(t *testing.T) {
		o := ops(t, nil)
		o.Put("s.txt", "public\r\nsecret token 42\r\nend\n")
		for _, expected := range []string{"secret token 42", "secret token 42\r\n", "secret token 42\n"} {
			e := expected
			if _, err := o.PlanReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "s.txt", Edits: []fileops.LineEdit{{LineNumber: 2, NewLine: "x", ExpectedLine: &e}}}); err != nil {
				t.Errorf("expected_line %q: %v", expected, err)
			}
		}
		wrong := "guess"
		_, err := o.PlanReplaceLines(ctx, fileops.ReplaceLinesArgs{FileName: "s.txt", Edits: []fileops.LineEdit{{LineNumber: 2, NewLine: "x", ExpectedLine: &wrong}}})
		fe := WantCode(t, err, fault.EditRejected, "expected_line_mismatch")
		if strings.Contains(jsonOf(fe), "secret") || fe.Details["lineNumber"] != 2 {
			t.Errorf("the refusal = %s", jsonOf(fe))
		}
	})

	t.Run("glob patterns are bounded in length and in matching time", func(t *testing.T) {
		o := ops(t, nil)
		for i := range 200 {
			o.Put(fmt.Sprintf("d/%s%03d.md", strings.Repeat("n", 100), i), "x")
		}
		_, err := o.Ls(ctx, fileops.LsArgs{Directory: "d", GlobPattern: strings.Repeat("*", 300_000)})
		WantCode(t, err, fault.InvalidPattern)
		_, err = o.Grep(ctx, fileops.GrepArgs{RegexPattern: "x", GlobPattern: strings.Repeat("*", fileops.MaxGlobBytes+1)})
		WantCode(t, err, fault.InvalidPattern)
		start := time.Now()
		for _, g := range []string{strings.Repeat("*", fileops.MaxGlobBytes), strings.Repeat("*?", fileops.MaxGlobBytes/2), strings.Repeat("{a,*}", fileops.MaxGlobBytes/5)} {
			r, err := o.Ls(ctx, fileops.LsArgs{Directory: "d", GlobPattern: g})
			if err != nil {
				t.Fatalf("glob of %d bytes: %v", len(g), err)
			}
			if g[0] == '*' && g[1] == '*' && len(r.Entries) != 200 {
				t.Errorf("all stars matched %d entries, want 200", len(r.Entries))
			}
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("three 1,000-byte globs over 200 names took %v", d)
		}
	})

	if caps.LiteralKeys {
		t.Run("keys that are not valid paths are never shown and are counted", func(t *testing.T) {
			o := ops(t, nil)
			o.Put("good.md", "needle")
			o.Put("docs/fine.md", "needle")
			bad := []string{"../escape.md", "weird//double.md", "docs/./dot.md", "ctl\x01name.md", "docs/../up.md", " lead.md"}
			for _, k := range bad {
				o.Put(k, "needle")
			}
			g := must(o.Grep(ctx, fileops.GrepArgs{RegexPattern: "needle"}))(t)
			var names []string
			for _, r := range g.Results {
				names = append(names, r.FileName)
			}
			if strings.Join(names, ",") != "docs/fine.md,good.md" || g.FilesSkipped.InvalidName != len(bad) {
				t.Errorf("grep shows %v, invalidName %d (want %d)", names, g.FilesSkipped.InvalidName, len(bad))
			}
			l := must(o.Ls(ctx, fileops.LsArgs{}))(t)
			if jsonOf(l.Entries) != `[{"name":"docs","type":"directory"},{"name":"weird","type":"directory"},{"name":"good.md","type":"file"}]` ||
				l.FilesSkipped == nil || l.FilesSkipped.InvalidName != 3 { // "..", "ctl\x01name.md", " lead.md"
				t.Errorf("ls root = %s", jsonOf(l))
			}
			l = must(o.Ls(ctx, fileops.LsArgs{Directory: "weird"}))(t)
			if jsonOf(l.Entries) != `[]` || l.FilesSkipped == nil || l.FilesSkipped.InvalidName != 1 {
				t.Errorf("ls weird = %s", jsonOf(l))
			}
			for _, r := range []any{g, l} {
				if s := jsonOf(r); strings.Contains(s, "..") || strings.Contains(s, "escape") || strings.Contains(s, "tenant") {
					t.Errorf("a result shows a hostile key: %s", s)
				}
			}
		})
	}
}

// straddling makes 30 lines of 1 to 6 fills, so that windows under a 40-byte
// budget stop at every possible place, in
// the given words, terminator and filler.
func straddling(format, eol, fill string) string {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, format, i)
		b.WriteString(strings.Repeat(fill, i%6))
		b.WriteString(eol)
	}
	return b.String()
}

// pageAll reads f.txt window by window, following next by its cursor or by
// its startLine alone, and returns the concatenated content.
func pageAll(t *testing.T, o *Ops, byCursor bool) string {
	t.Helper()
	var got strings.Builder
	args := fileops.ReadRangeArgs{Path: "f.txt"}
	for range 10_000 {
		r := must(o.ReadRange(context.Background(), args))(t)
		if r.CursorStale {
			t.Fatal("a fresh cursor was stale")
		}
		if r.StartLine != max(args.StartLine, 1) && !byCursor {
			t.Fatalf("window starts at %d, asked for %d", r.StartLine, args.StartLine)
		}
		got.WriteString(r.Content)
		if !r.HasMore {
			return got.String()
		}
		if r.EndLine != r.Next.StartLine-1 {
			t.Fatalf("window ends at %d but next starts at %d", r.EndLine, r.Next.StartLine)
		}
		args = fileops.ReadRangeArgs{Path: "f.txt", StartLine: r.Next.StartLine}
		if byCursor {
			args = fileops.ReadRangeArgs{Path: "f.txt", Cursor: r.Next.Cursor}
		}
	}
	t.Fatal("paging did not end")
	return ""
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
