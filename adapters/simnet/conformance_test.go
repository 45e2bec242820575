package simnet_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/simnet"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/handlers/signing/transporttest"
)

type busNet struct{ b *simnet.Bus }

func (n busNet) Endpoint(id twophase.PeerID) signing.Transport { return n.b.Endpoint(id) }
func (n busNet) Attach(id twophase.PeerID, recv func([]byte)) {
	n.b.Attach(id, func(_ context.Context, raw []byte, _ *simnet.Opened) { recv(raw) })
}

// The bus on the wall clock passes the transport suite.
func TestBusConformance(t *testing.T) {
	transporttest.Run(t, func(t *testing.T, members []twophase.PeerID) transporttest.Net {
		return busNet{simnet.NewBus(simnet.RealTime{}, simnet.Faults{}, rand.New(rand.NewPCG(1, 2)), members)}
	})
}
