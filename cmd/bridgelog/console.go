package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// The operator console: pages for people on a process's metrics address,
// rendered on the server from the same reads as the command line's
// status, with embedded styles and no scripts.

//go:embed console
var consoleFiles embed.FS

// auditTimeout bounds one audit lookup from the console's search box.
const auditTimeout = 10 * time.Second

// maxAuditKeyBytes bounds what the search box takes: the longest audit
// key (a batch key) is well under it.
const maxAuditKeyBytes = 512

// consoleViews are the console's page templates, each with the layout.
var consoleViews = func() map[string]*template.Template {
	funcs := template.FuncMap{
		"short": shortHex,
		"ago": func(at, t time.Time) string {
			if t.IsZero() {
				return "-"
			}
			return at.Sub(t).Round(100 * time.Millisecond).String()
		},
		"agoPtr": func(at time.Time, t *time.Time) string {
			if t == nil {
				return "-"
			}
			return at.Sub(*t).Round(100 * time.Millisecond).String()
		},
		"utc":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000") },
		"join":  strings.Join,
		"upper": strings.ToUpper,
		"lag":   chainLag,
		"unixUTC": func(sec int64) string {
			return time.Unix(sec, 0).UTC().Format("2006-01-02 15:04:05")
		},
		"deref": func(b *bool) bool { return b != nil && *b },
	}
	views := map[string]*template.Template{}
	for _, page := range []string{"relay", "signer", "audit", "result"} {
		views[page] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(consoleFiles,
			"console/layout.html", "console/"+page+".html"))
	}
	return views
}()

// consolePage is what the layout renders around a page's own data.
type consolePage struct {
	Title string
	Role  string // "relay" or "signer": which page "/" is
	Key   string // the search box's key
	At    time.Time
	Data  any
}

// renderConsole writes a page; a template error is the console's bug,
// answered 500 and logged, never half a page.
func renderConsole(w http.ResponseWriter, logger *slog.Logger, code int, view string, p consolePage) {
	if p.At.IsZero() {
		p.At = time.Now().UTC()
	}
	var buf bytes.Buffer
	if err := consoleViews[view].Execute(&buf, p); err != nil {
		logger.Error("console page failed to render", "view", view, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// No scripts, styles from this origin only, never framed: a
	// hostile string that escaped the templates could still run nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// serveConsoleCSS serves the embedded style sheet.
func serveConsoleCSS(w http.ResponseWriter, _ *http.Request) {
	b, _ := consoleFiles.ReadFile("console/console.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = w.Write(b)
}

// auditView is the audit page's data: the key's story, each subject's
// steps a timeline.
type auditView struct {
	Key         string
	Unavailable bool // no Finder in this process
	Err         string
	Story       analytics.Story
}

// auditHandler answers GET /audit?key=K with the key's story, built from
// finder's matches and the keys they link to; without a finder the page
// says that audit is unavailable here.
func auditHandler(role string, finder analytics.Finder, logger *slog.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := projections.NormalizeAuditKey(r.URL.Query().Get("key"))
		v := auditView{Key: key}
		code := http.StatusOK
		switch {
		case finder == nil:
			v.Unavailable = true
		case key == "":
			v.Err = "type a key: an aggregate or correlation id, a source key, a transaction hash on either chain, a batch, a leaf or a signing event id"
			code = http.StatusBadRequest
		case len(key) > maxAuditKeyBytes:
			v.Err = fmt.Sprintf("a key is at most %d bytes", maxAuditKeyBytes)
			code = http.StatusBadRequest
		default:
			ctx, cancel := context.WithTimeout(r.Context(), auditTimeout)
			defer cancel()
			var err error
			if v.Story, err = analytics.BuildStory(ctx, finder, key); err != nil {
				logger.Warn("console audit failed", "key", key, "err", err)
				v.Err = "the audit failed: " + err.Error()
				code = http.StatusServiceUnavailable
				if errors.Is(err, context.DeadlineExceeded) {
					code = http.StatusGatewayTimeout
				}
			}
		}
		renderConsole(w, logger, code, "audit", consolePage{Title: "audit " + key, Role: role, Key: key, Data: v})
	}
}

// consoleAuditFinder is the audit finder of the console's search box: the
// process's own store (its audit_keys projection) and log, as `bridgelog
// audit` reads them.
func consoleAuditFinder(lg topics.Log, st projections.Store) analytics.Finder {
	return analytics.NewLocalFinder(projections.BridgeReader{Store: st}, lg, nil)
}
