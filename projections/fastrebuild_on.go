//go:build !nofastrebuild

package projections

// defaultRebuilder is the [Rebuilder] of runners not given one.
func defaultRebuilder() func() Rebuilder { return NewFastRebuild }
