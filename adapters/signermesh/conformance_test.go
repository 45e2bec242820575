package signermesh

import (
	"context"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/handlers/signing/transporttest"
)

type meshNet map[twophase.PeerID]*Mesh

func (n meshNet) Endpoint(id twophase.PeerID) signing.Transport { return n[id] }
func (n meshNet) Attach(id twophase.PeerID, recv func([]byte)) {
	n[id].Attach(func(_ context.Context, raw []byte) { recv(raw) })
}

// Four members over real loopback gRPC pass the transport suite.
func TestMeshConformance(t *testing.T) {
	transporttest.Run(t, func(t *testing.T, members []twophase.PeerID) transporttest.Net {
		c := newCluster(t, members...)
		n := meshNet{}
		for _, id := range members {
			n[id] = c.start(c.config(id))
		}
		return n
	})
}
