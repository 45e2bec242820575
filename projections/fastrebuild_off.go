//go:build nofastrebuild

package projections

// defaultRebuilder is the [Rebuilder] of runners not given one: built
// with nofastrebuild, none, so every batch folds in place.
func defaultRebuilder() func() Rebuilder { return nil }
