//go:build integration

package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/filecontext-aws/filecontext/internal/testenv"
	"github.com/filecontext-aws/filecontext/pkg/console"
)

// TestSelfApprovalIsRefusedOnThePage: the console acts as its operator; when
// that is the identity that requested the change, the approve is the API's
// 403 and the page shows it, the change still pending.
func TestSelfApprovalIsRefusedOnThePage(t *testing.T) {
	w := newWorld(t, map[string]string{"a.md": "one\n"})
	id := w.park(t, "file_access_write", map[string]any{"fileName": "a.md", "content": "two\n", "overwrite": true})
	srv := httptest.NewServer(console.New(w.backend("agent"), console.Options{Serving: "memory"}))
	defer srv.Close()
	b := testenv.NewBrowser(t)
	card := `li.change[data-id="` + id + `"]`
	if err := chromedp.Do(b.Ctx,
		chromedp.Navigate(srv.URL+"/console/"),
		chromedp.Click(chromedp.CSS(card+" button.approve")),
		chromedp.WaitVisible(chromedp.CSS(card+" .error")),
	); err != nil {
		t.Fatalf("%v; page said %v", err, b.Logs())
	}
	msg, _ := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(card+" .error")))
	status, _ := chromedp.Run(b.Ctx, chromedp.AttributeValue(chromedp.CSS(card), "data-status"))
	if !strings.HasPrefix(msg, "forbidden (403): agent requested this change and cannot approve it") || status.Value != "pending" {
		t.Errorf("page shows %q, status %q", msg, status.Value)
	}
	if got := w.file(t, "a.md"); got != "one\n" {
		t.Errorf("file = %q", got)
	}
	// Its buttons work again: it can still be rejected.
	if err := chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(card+" button.reject")),
		chromedp.WaitVisible(chromedp.CSS(card+" .outcome.rejected")),
	); err != nil {
		t.Fatal(err)
	}
	for _, r := range b.Requests() {
		if !strings.HasPrefix(r, srv.URL+"/console/") {
			t.Errorf("the page requested %s", r)
		}
	}
}

// TestThePageSaysWhenTheAPIFails: a list that cannot be read is a banner,
// and the page recovers when the API comes back.
func TestThePageSaysWhenTheAPIFails(t *testing.T) {
	w := newWorld(t, nil)
	up := w.backend("ops")
	var failing atomic.Bool
	failing.Store(true)
	backend := func(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
		if failing.Load() {
			return http.StatusForbidden, []byte(`{"message":"Missing Authentication Token"}`), nil
		}
		return up(ctx, method, path, body)
	}
	srv := httptest.NewServer(console.New(backend, console.Options{}))
	defer srv.Close()
	b := testenv.NewBrowser(t)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/console/"), chromedp.WaitVisible(chromedp.CSS("#banner"))); err != nil {
		t.Fatal(err)
	}
	banner, _ := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS("#banner")))
	if banner != "Could not load the approvals: HTTP 403" {
		t.Errorf("banner = %q", banner)
	}
	failing.Store(false)
	if err := chromedp.Do(b.Ctx, chromedp.Click(chromedp.CSS("#refresh")), chromedp.WaitNotVisible(chromedp.CSS("#banner")), chromedp.WaitVisible(chromedp.CSS("#empty"))); err != nil {
		t.Fatal(err)
	}
}
