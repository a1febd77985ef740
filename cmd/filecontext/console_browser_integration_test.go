//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/filecontext-aws/filecontext/internal/testenv"
)

// TestApprovalConsoleInChromium parks three writes on the local server,
// opens /console in headless Chromium, reads their diffs, approves one,
// rejects one with a reason, changes the third's file on disk and approves
// it to see conflict; then checks the files on disk and the records.
// FILECONTEXT_UPDATE_SCREENSHOTS=1 rewrites the screenshots in docs/.
func TestApprovalConsoleInChromium(t *testing.T) {
	bin := buildCLI(t)
	root := t.TempDir()
	files := map[string]string{
		"guides/setup.md": "# Setup\n\nInstall the tool.\nRun it once.\n",
		"notes/todo.md":   "# To do\n\n- alpha\n- beta\n",
		"plan.md":         "# Plan\n\n1. draft\n2. review\n3. ship\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(body), 0o644)
	}
	url, _ := startServer(t, bin, "--root", root, "--write-tools", "enabled")
	park := func(tool string, args map[string]any) string {
		t.Helper()
		status, m, _ := post(t, url, "/tools/"+tool, mustJSON(args))
		if status != 202 {
			t.Fatalf("%s = %d %v", tool, status, m)
		}
		time.Sleep(5 * time.Millisecond) // distinct request times: the page lists newest first
		return m["approvalId"].(string)
	}
	approveID := park("file_access_replace", map[string]any{"fileName": "guides/setup.md", "oldString": "Run it once.", "newString": "Run it twice."})
	// Markup in a change is shown as text, never run.
	rejectID := park("file_access_write", map[string]any{"fileName": "notes/todo.md", "overwrite": true,
		"content": "# To do\n\n- alpha\n- <img src=x onerror=\"document.title='pwned'\">\n"})
	conflictID := park("file_access_replace_lines", map[string]any{"fileName": "plan.md", "edits": []map[string]any{{"line_number": 5, "new_line": "3. ship on Friday"}}})

	b := testenv.NewBrowser(t)
	card := func(id string) string { return `li.change[data-id="` + id + `"]` }
	if err := chromedp.Do(b.Ctx,
		chromedp.Navigate(url+"/console"),
		chromedp.WaitVisible(chromedp.CSS(card(conflictID)+" table.diff tr.add")),
		chromedp.WaitVisible(chromedp.CSS(card(approveID)+" table.diff tr.del")),
	); err != nil {
		t.Fatalf("open the console: %v; page said %v", err, b.Logs())
	}
	order, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("li.change")].map(li => li.dataset.id)`))
	if strings.Join(order, ",") != conflictID+","+rejectID+","+approveID {
		t.Errorf("pending order = %v, want newest first", order)
	}
	// The diff: a deletion and an addition with their line numbers, in colour.
	rows, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[[][]string](`[...document.querySelectorAll('`+card(approveID)+` tr.add, `+card(approveID)+` tr.del')]
		.map(tr => [tr.className, ...[...tr.cells].map(c => c.textContent), getComputedStyle(tr).backgroundColor])`))
	if len(rows) != 2 || rows[0][0] != "del" || rows[0][1] != "4" || rows[0][3] != "-Run it once." ||
		rows[1][0] != "add" || rows[1][2] != "4" || rows[1][3] != "+Run it twice." || rows[0][4] == rows[1][4] {
		t.Errorf("diff rows = %q", rows)
	}
	meta, _ := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(card(approveID)+" .meta")))
	if !strings.HasPrefix(meta, "requested by local:agent just now") || !strings.HasSuffix(meta, "expires in 24 h") {
		t.Errorf("meta = %q", meta)
	}
	shot(t, b, "console-pending.png")

	// Approve one.
	if err := chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(card(approveID)+" button.approve")),
		chromedp.WaitVisible(chromedp.CSS(card(approveID)+" .outcome.applied")),
	); err != nil {
		t.Fatalf("approve: %v", err)
	}
	// Reject one with a reason.
	if err := chromedp.Do(b.Ctx,
		chromedp.SendKeys(chromedp.CSS(card(rejectID)+" input.reason"), "not this list"),
		chromedp.Click(chromedp.CSS(card(rejectID)+" button.reject")),
		chromedp.WaitVisible(chromedp.CSS(card(rejectID)+" .outcome.rejected")),
	); err != nil {
		t.Fatalf("reject: %v", err)
	}
	// The third's file changes on disk before it is approved.
	os.WriteFile(filepath.Join(root, "plan.md"), []byte("# Plan\n\n1. draft\n2. review by Ana\n3. ship\n"), 0o644)
	if err := chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(card(conflictID)+" button.approve")),
		chromedp.WaitVisible(chromedp.CSS(card(conflictID)+" .outcome.conflict")),
	); err != nil {
		t.Fatalf("approve into a conflict: %v", err)
	}
	outcomes := map[string]string{}
	for _, id := range []string{approveID, rejectID, conflictID} {
		outcomes[id], _ = chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(card(id)+" .outcome")))
	}
	if !strings.HasPrefix(outcomes[approveID], "applied (etag ") || outcomes[rejectID] != "rejected: not this list" ||
		!strings.Contains(outcomes[conflictID], "conflict") || !strings.Contains(outcomes[conflictID], "changed") {
		t.Errorf("outcomes on the page = %q", outcomes)
	}

	// The files on disk and the records.
	want := map[string]string{
		"guides/setup.md": "# Setup\n\nInstall the tool.\nRun it twice.\n",
		"notes/todo.md":   files["notes/todo.md"],
		"plan.md":         "# Plan\n\n1. draft\n2. review by Ana\n3. ship\n",
	}
	for name, body := range want {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != body {
			t.Errorf("%s = %q, want %q", name, got, body)
		}
	}
	for id, status := range map[string]string{approveID: "applied", rejectID: "rejected", conflictID: "conflict"} {
		resp, err := http.Get(url + "/approvals/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Status, DecidedBy, Reason string }
		json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if v.Status != status || v.DecidedBy != "local:operator" || (status == "rejected" && v.Reason != "not this list") {
			t.Errorf("record %s = %+v, want %s", id, v, status)
		}
	}

	// History: every decided change, who decided it and when.
	if err := chromedp.Do(b.Ctx,
		chromedp.SetValue(chromedp.CSS("#filter"), "decided"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("filter").dispatchEvent(new Event("change"))`),
		chromedp.WaitVisible(chromedp.CSS(`li.change.rejected[data-id="`+rejectID+`"]`)),
	); err != nil {
		t.Fatalf("history: %v", err)
	}
	history, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("li.change")].map(li => li.dataset.status + " " + li.querySelector(".meta").textContent)`))
	if len(history) != 3 {
		t.Errorf("history = %q", history)
	}
	for _, h := range history {
		if !strings.Contains(h, "decided by local:operator") {
			t.Errorf("history entry %q does not say who decided", h)
		}
	}
	shot(t, b, "console-history.png")

	if title, _ := chromedp.Run(b.Ctx, chromedp.Title()); title != "FileContext approvals" {
		t.Errorf("title = %q: markup in a change ran", title)
	}
	for _, r := range b.Requests() {
		if !strings.HasPrefix(r, url+"/console") {
			t.Errorf("the page requested %s", r)
		}
	}
	for _, l := range b.Logs() {
		t.Errorf("the page logged %s", l)
	}
}

// shot takes a screenshot of the page; with FILECONTEXT_UPDATE_SCREENSHOTS=1
// it replaces the one in docs/, otherwise it checks the one in docs/ is a
// picture of the same size.
func shot(t *testing.T, b *testenv.Browser, name string) {
	t.Helper()
	img, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	taken, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("screenshot is no PNG: %v", err)
	}
	path := filepath.Join("..", "..", "docs", name)
	if os.Getenv("FILECONTEXT_UPDATE_SCREENSHOTS") == "1" {
		if err := os.WriteFile(path, img, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run with FILECONTEXT_UPDATE_SCREENSHOTS=1 to make it)", err)
	}
	defer f.Close()
	if kept, err := png.DecodeConfig(f); err != nil || kept.Width != taken.Width || kept.Height != taken.Height {
		t.Errorf("docs/%s = %+v %v, the page is %dx%d", name, kept, err, taken.Width, taken.Height)
	}
}
