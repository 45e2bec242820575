package twophase

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// MetricNames must list exactly the Metric constants of metrics.go, in
// their order, each once, and each constant's comment must start with its
// kind: the metrics adapter and its tests rely on both.
func TestMetricNamesListsEveryConstant(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, id := range v.Names {
				if !strings.HasPrefix(id.Name, "Metric") {
					continue
				}
				name, err := strconv.Unquote(v.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatalf("%s: %v", id.Name, err)
				}
				declared = append(declared, name)
				kind, _, _ := strings.Cut(strings.TrimSpace(v.Comment.Text()), " ")
				kind = strings.TrimSuffix(strings.TrimSuffix(kind, ":"), ",")
				if !slices.Contains([]string{"counter", "gauge", "histogram"}, kind) {
					t.Errorf("%s: comment %q does not start with counter, gauge or histogram", id.Name, v.Comment.Text())
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("no Metric constants found in metrics.go")
	}
	if !slices.Equal(MetricNames, declared) {
		t.Errorf("MetricNames = %v\nconstants  = %v", MetricNames, declared)
	}
	seen := map[string]bool{}
	for _, n := range MetricNames {
		if seen[n] {
			t.Errorf("%s declared twice", n)
		}
		seen[n] = true
	}
}
