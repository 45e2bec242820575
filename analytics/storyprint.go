package analytics

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// PrintOptions picks how a story is printed: a table for people (the
// default), a JSON document, or one sentence per step.
type PrintOptions struct {
	JSON    bool // the Story as JSON (it holds each step's sentence too)
	Explain bool // one line per step in words, instead of the table
}

// storyTime is how a step's time is printed: UTC to the millisecond.
const storyTime = "2006-01-02T15:04:05.000Z"

// PrintStory writes a story. An empty story is said in words (the JSON
// form has no subjects): the commands exit 1 on it.
func PrintStory(w io.Writer, st Story, opt PrintOptions) error {
	if opt.JSON {
		if st.Subjects == nil {
			st.Subjects = []StorySubject{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	if st.Empty() {
		_, err := fmt.Fprintf(w, "no event matches %s\n", st.Key)
		return err
	}
	ew := &errWriter{w: w}
	if st.Ambiguous() {
		ew.printf("%s is ambiguous: it names %d things\n", st.Key, len(st.Subjects))
		for _, sub := range st.Subjects {
			ew.printf("  %s %s (as %s)\n", sub.Kind, sub.ID, strings.Join(sub.MatchedAs, ", "))
		}
		ew.printf("\n")
	}
	for i, sub := range st.Subjects {
		if i > 0 {
			ew.printf("\n")
		}
		ew.printf("== %s %s (%s matched as %s)\n", sub.Kind, sub.ID, st.Key, strings.Join(sub.MatchedAs, ", "))
		if opt.Explain {
			printExplained(ew, sub)
		} else {
			printTable(ew, sub)
		}
	}
	return ew.err
}

func printExplained(ew *errWriter, sub StorySubject) {
	for _, s := range sub.Steps {
		ew.printf("%s  %s\n", s.At.Format(storyTime), s.Explain)
	}
}

// printTable prints a subject's steps under a heading per section.
func printTable(ew *errWriter, sub StorySubject) {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	section := ""
	for _, s := range sub.Steps {
		if s.Section != section {
			section = s.Section
			fmt.Fprintf(tw, "-- %s\n", section)
			fmt.Fprintf(tw, "TIME\tKIND\tBY\tFACTS\tMATCH\n")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.At.Format(storyTime), s.Kind, by(s, sub), factLine(s.Facts),
			strings.Join(s.MatchedAs, ","))
	}
	if err := tw.Flush(); err != nil && ew.err == nil {
		ew.err = err
	}
}

// by names whose log a step comes from: the signer, or the log itself
// when the subject's steps come from several logs and the signer is not
// known; "-" for a step of every log (a round's votes, the request).
func by(s StoryStep, sub StorySubject) string {
	if s.Signer != "" {
		return s.Signer
	}
	if s.Kind == KindSigningRound || s.Kind == twophase.TypeEventRequested ||
		s.Section != SectionSigning && s.Section != SectionPayout {
		return "-"
	}
	for _, o := range sub.Steps {
		if o.Log != "" && o.Log != s.Log && (o.Section == SectionSigning || o.Section == SectionPayout) {
			return s.Log
		}
	}
	return "-"
}

func factLine(fs []StoryFact) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Name + "=" + f.Value
	}
	return strings.Join(parts, "  ")
}

// errWriter keeps the first write error, so printing reads straight.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
