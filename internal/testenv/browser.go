package testenv

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser is a headless Chromium (Debian's chromium, installed by
// scripts/system-packages.sh) driven through the DevTools protocol. It
// records the URL of every request its pages make and every message they
// log to the console.
type Browser struct {
	Ctx context.Context

	mu       sync.Mutex
	requests []string
	logs     []string
}

// NewBrowser starts Chromium for the test and stops it at the end. It fails
// the test when Chromium is missing: browser tests never skip.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	exe := os.Getenv("FILECONTEXT_TEST_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(exe); err != nil {
		t.Fatalf("no Chromium at %s (scripts/system-packages.sh installs Debian's chromium): %v", exe, err)
	}
	// The flags a closed network needs: without the background-networking
	// ones Chromium keeps trying to reach Google's hosts.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	)
	b := &Browser{}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithListener(b.record))
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b.Ctx = ctx
	// The first action starts the browser and the tab.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return b
}

// record keeps the events the tests read; it runs on the tab's reading
// goroutine, so it only appends.
func (b *Browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
	case *runtime.EventConsoleAPICalled:
		for _, a := range e.Args {
			b.logs = append(b.logs, string(e.Type)+": "+string(a.Value)+a.Description)
		}
	case *runtime.EventExceptionThrown:
		b.logs = append(b.logs, "exception: "+e.ExceptionDetails.Text)
	}
}

// Requests returns the URLs requested so far.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// Logs returns what pages logged and threw so far.
func (b *Browser) Logs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.logs...)
}
