package handlers

import (
	"context"
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// downChain is a chain whose RPC endpoint does not answer.
type downChain struct{ forkedChain }

func (*downChain) ChainID() uint64 { return testChainID + 1 }
func (*downChain) Tip(context.Context) (uint64, error) {
	return 0, errors.New("dial tcp: connection refused")
}

// rigProjector catches the rig's projection up.
type rigProjector struct{ r *indexerRig }

func (p rigProjector) CatchUp(ctx context.Context) error {
	_, err := p.r.runner.CatchUp(ctx)
	return err
}

// TestRelayStepStreaksPerChain: while one chain's indexer fails and the
// other's works, the failing one is one relay.step_failed event for its
// own step, not a failure and a recovery every round.
func TestRelayStepStreaksPerChain(t *testing.T) {
	chain := &forkedChain{}
	chain.mine(10, 1)
	r := newIndexerRig(t, chain, IndexerConfig{})
	down := *r.ix
	down.Chain = &downChain{}
	relay := &Relay{Projector: rigProjector{r}, Indexers: []*Indexer{r.ix, &down}, Appender: r.appender(), Logger: quietLogger}
	for i := 0; i < 3; i++ {
		if err := relay.Round(context.Background()); err == nil {
			t.Fatalf("round %d: no error from the chain that is down", i)
		}
	}
	failed := r.events(topics.TopicChain, domain.TypeRelayStepFailed)
	if len(failed) != 1 || failed[0].(*domain.RelayStepFailed).Step != "index:1338" {
		t.Fatalf("step failures %+v, want one for index:1338", failed)
	}
	if n := len(r.events(topics.TopicChain, domain.TypeRelayStepRecovered)); n != 0 {
		t.Fatalf("%d recoveries recorded while the chain is down", n)
	}
	if c := r.cursor(); c.ScannedTo != chain.tipNumber() {
		t.Fatalf("the working chain's cursor %+v", c)
	}
}
