// Package browsertest opens pages in headless Chromium for the tests of
// report.html and history.html: the browser CI installs, a fresh profile, and
// a record of everything a page must not do (console errors, exceptions,
// dialogs, network requests).
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium finds the browser: $ENTROPIX_CHROMIUM, else chromium on PATH. Without
// one the test skips, except in CI (CI or ENTROPIX_REQUIRE_BROWSER set), where a
// missing browser is a failure: CI installs Debian's chromium.
func Chromium(t testing.TB) string {
	if p := os.Getenv("ENTROPIX_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" || os.Getenv("ENTROPIX_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium found: apt-get install -y chromium, or set ENTROPIX_CHROMIUM")
	}
	t.Skip("no chromium found (apt-get install -y chromium); set CI or ENTROPIX_REQUIRE_BROWSER to make this a failure")
	return ""
}

// Open starts headless Chromium with the flags CI uses, a fresh profile,
// a listener for page issues, and alert() replaced by a recorder.
func Open(tb testing.TB, bin string) (context.Context, *Issues) {
	root, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	tb.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(root,
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1280, 1000))
	tb.Cleanup(cancelAlloc)
	issues := &Issues{}
	ctx, cancelCtx := chromedp.NewContext(alloc, chromedp.WithListener(issues.listen))
	tb.Cleanup(cancelCtx)
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__alerts = []; window.alert = m => window.__alerts.push(String(m));`,
	})
	if err == nil {
		_, err = chromedp.Call(ctx, log.Enable, cdp.Empty{})
	}
	if err == nil {
		_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	}
	if err != nil {
		tb.Fatalf("start chromium: %v", err)
	}
	return ctx, issues
}

// Issues collects everything the page must not do: console errors,
// uncaught exceptions, dialogs and network requests.
type Issues struct {
	mu   sync.Mutex
	list []string
}

func (p *Issues) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// Get returns the issues so far.
func (p *Issues) Get() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...)
}

func (p *Issues) listen(ev any) {
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		p.add("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception)
	case *runtime.EventConsoleAPICalled:
		if e.Type == "error" || e.Type == "assert" || e.Type == "warning" {
			var args []string
			for _, a := range e.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			p.add("console %s: %s", e.Type, strings.Join(args, " "))
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			p.add("log error: %s %s", e.Entry.Text, e.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		p.add("dialog: %s", e.Message)
	case *network.EventRequestWillBeSent:
		if u := e.Request.URL; !strings.HasPrefix(u, "file:") && !strings.HasPrefix(u, "data:") {
			p.add("network request: %s", u)
		}
	}
}
