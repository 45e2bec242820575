package metrics

import (
	"github.com/bridgelog/bridgelog/adapters/signermesh"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

// MeshMetrics implements signermesh.Metrics: the links of one signer to
// its peers (bridgelog_signer_mesh_*, by peer).
type MeshMetrics struct{ h *HandlerMetrics }

// Mesh returns the metrics of a signer's mesh.
func (r *Registry) Mesh() MeshMetrics { return MeshMetrics{h: r.handlers} }

func (m MeshMetrics) Handshake(peer twophase.PeerID, outcome signermesh.Outcome) {
	m.h.Count("signer_mesh_handshakes_total", map[string]string{"peer": string(peer), "outcome": string(outcome)}, 1)
}
func (m MeshMetrics) Sent(peer twophase.PeerID) {
	m.h.Count("signer_mesh_messages_sent_total", map[string]string{"peer": string(peer)}, 1)
}
func (m MeshMetrics) Received(peer twophase.PeerID) {
	m.h.Count("signer_mesh_messages_received_total", map[string]string{"peer": string(peer)}, 1)
}
func (m MeshMetrics) Dropped(peer twophase.PeerID, reason signermesh.DropReason) {
	m.h.Count("signer_mesh_messages_dropped_total", map[string]string{"peer": string(peer), "reason": string(reason)}, 1)
}
func (m MeshMetrics) Reconnect(peer twophase.PeerID) {
	m.h.Count("signer_mesh_reconnects_total", map[string]string{"peer": string(peer)}, 1)
}

// Refused counts a connection or link the mesh turned away before the
// other side proved a member's key, by reason (no peer label: an
// outsider cannot choose label values nor be counted as a member).
func (m MeshMetrics) Refused(reason signermesh.Refusal) {
	m.h.Count("signer_mesh_refused_total", map[string]string{"reason": string(reason)}, 1)
}

// Connected sets whether the link to peer is up (1) or not (0), for the
// peer-down alert; a process sets it from signermesh.Mesh.Peers.
func (m MeshMetrics) Connected(peer twophase.PeerID, up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.h.Gauge("signer_mesh_peer_connected", map[string]string{"peer": string(peer)}, v)
}

// KaspaNodeMetrics implements kaspanode.Metrics: a signer's own Kaspa
// node (bridgelog_kaspa_node_*).
type KaspaNodeMetrics struct{ h *HandlerMetrics }

// KaspaNode returns the metrics of a signer's Kaspa node client.
func (r *Registry) KaspaNode() KaspaNodeMetrics { return KaspaNodeMetrics{h: r.handlers} }

func (k KaspaNodeMetrics) RPCError(call string) {
	k.h.Count("kaspa_node_rpc_errors_total", map[string]string{"call": call}, 1)
}
func (k KaspaNodeMetrics) Reconnected() {
	k.h.Count("kaspa_node_reconnects_total", map[string]string{}, 1)
}
func (k KaspaNodeMetrics) VirtualDAAScore(score uint64) {
	k.h.Gauge("kaspa_node_virtual_daa_score", map[string]string{}, float64(score))
}

// Up sets whether the signer's node gives views it trusts (1) or not (0:
// unreachable, on another network, or stalled).
func (k KaspaNodeMetrics) Up(up bool) {
	v := 0.0
	if up {
		v = 1
	}
	k.h.Gauge("kaspa_node_up", map[string]string{}, v)
}

// EVMNodeMetrics is a signer's own EVM node (bridgelog_evm_node_*).
type EVMNodeMetrics struct{ h *HandlerMetrics }

// EVMNode returns the metrics of a signer's EVM node.
func (r *Registry) EVMNode() EVMNodeMetrics { return EVMNodeMetrics{h: r.handlers} }

// Up sets whether the signer's EVM node answers on the configured chain
// (1) or not (0: unreachable, not dialled yet, or on another chain).
func (e EVMNodeMetrics) Up(up bool) {
	v := 0.0
	if up {
		v = 1
	}
	e.h.Gauge("evm_node_up", map[string]string{}, v)
}
