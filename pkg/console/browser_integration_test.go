//go:build integration

package console_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// TestPendingChangesAreNewestFirst: request times whose text does not sort
// (the API trims trailing zeros: "…01.15Z" is later than "…01.1Z", though
// its text sorts first) are ordered by their value.
func TestPendingChangesAreNewestFirst(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 12, 1, 10, 0, 1, 100e6, time.UTC),
		time.Date(2026, 12, 1, 10, 0, 1, 150e6, time.UTC),
		time.Date(2026, 12, 1, 10, 0, 1, 9e6, time.UTC),
	}
	var i atomic.Int32
	i.Store(-1)
	clock := func() time.Time { return times[max(0, min(int(i.Load()), len(times)-1))] }
	w := newWorldAt(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "c.md": "c\n"}, clock)
	var ids []string
	for k, name := range []string{"a.md", "b.md", "c.md"} {
		i.Store(int32(k))
		ids = append(ids, w.park(t, "file_access_write", map[string]any{"fileName": name, "content": "new\n", "overwrite": true}))
	}
	srv := httptest.NewServer(console.New(w.backend("ops"), console.Options{}))
	defer srv.Close()
	b := testenv.NewBrowser(t)
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(srv.URL+"/console/"), chromedp.WaitVisible(chromedp.CSS(`li.change:nth-child(3)`))); err != nil {
		t.Fatal(err)
	}
	order, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("li.change")].map(li => li.dataset.id)`))
	if want := []string{ids[1], ids[0], ids[2]}; strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("order = %v, want %v (10:00:01.150, .100, .009)", order, want)
	}
}
