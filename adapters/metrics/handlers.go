package metrics

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
)

// HandlerMetrics implements the components' typed metrics (handlers.Metrics,
// signingsource.Metrics, the relay's backups: see components.go, where each
// series is named). Count and Gauge are their engine: each name becomes a
// CounterVec or GaugeVec on first use, called bridgelog_<name> (a name that already starts with
// "bridgelog_" is kept as is), labelled by the sorted keys of its first
// call. Prometheus allows one label set and one kind per name, so a later
// call with other keys or the other kind is dropped and counted, not
// registered under a second shape.
type HandlerMetrics struct {
	r  *Registry
	mu sync.RWMutex
	m  map[string]*dynamic // by caller's name
}

type kind uint8

const (
	counterKind kind = iota + 1
	gaugeKind
	histogramKind // signer metrics only; handlers have counters and gauges
)

func (k kind) String() string {
	switch k {
	case counterKind:
		return "counter"
	case histogramKind:
		return "histogram"
	}
	return "gauge"
}

// dynamic is one lazily created family; err is set when it could not be
// registered, so later calls count the failure instead of retrying.
type dynamic struct {
	kind    kind
	keys    []string // sorted
	counter *prometheus.CounterVec
	gauge   *prometheus.GaugeVec
	reason  string
	err     error
}

// handlerHelp documents the names handlers use today; others get a generic
// help text.
var handlerHelp = map[string]string{
	"anchor_failures_total":               "Merkle root anchor transactions that failed (reverted or abandoned).",
	"batches_anchored_total":              "Withdrawal batches whose merkle root was anchored.",
	"batches_created_total":               "Withdrawal batches created.",
	"batches_lost_total":                  "Batch cuts refused because the chain holds another root for that batch id that no cut of the pending withdrawals gives (the log lacks the batch; batching waits).",
	"batches_recovered_total":             "Batches the log lacked, cut again to match their root on chain.",
	"chain_events_total":                  "Bridge events appended by the indexer, by chain.",
	"claim_attempts_failed_total":         "Claim attempts that failed and will be retried.",
	"claim_proofs_invalid_total":          "Claims refused because their merkle proof did not verify.",
	"claim_records_undecodable_total":     "Claim records that did not decode (dead-lettered with the reason).",
	"confirmations_total":                 "Observations that reached the confirmation depth, by chain.",
	"deposits_failed_total":               "Deposits whose mint failed (reverted or abandoned).",
	"refunds_completed_total":             "Refused burns toward Kaspa minted back to their burner.",
	"refunds_failed_total":                "Refunds the token refused for a reason that would repeat.",
	"refund_certificates_refused_total":   "Refusal certificates the relay would not act on, by reason (group, quorum, token).",
	"deposits_minted_total":               "Deposits minted (including ones found already minted).",
	"evm_node_up":                         "1 while the signer's EVM node answers on the configured chain, else 0 (unreachable, or on another chain).",
	"gas_used_total":                      "Gas used by bridgelog's transactions, by purpose.",
	"kaspa_deposits_total":                "Deposit events of the relay's Kaspa indexer by network and kind: detected, confirmed, refused (recorded, never minted), reorged, reorged_final (after its verdict).",
	"kaspa_indexer_rpc_errors_total":      "Calls of the relay's Kaspa indexer to its node that failed, by network.",
	"indexer_lag_blocks":                  "Blocks between the chain tip and the indexer's scanned height, by chain.",
	"indexer_reorg_beyond_window":         "1 while the chain's indexer is stopped by a reorg deeper than its reorg window, else 0, by chain.",
	"indexer_rpc_errors_total":            "Indexer RPC calls that failed, by chain.",
	"log_backup_failures_total":           "Periodic backups of the embedded log (relay --backup-every) that failed.",
	"log_backup_last_success_seconds":     "Unix time of the last periodic backup of the embedded log that was written.",
	"log_backups_total":                   "Periodic backups of the embedded log (relay --backup-every) written.",
	"kaspa_node_reconnects_total":         "Connections to the signer's Kaspa node dialled again after one was lost.",
	"kaspa_node_rpc_errors_total":         "Calls to the signer's Kaspa node that failed (no answer, or an error answer), by call.",
	"kaspa_node_up":                       "1 while the signer's Kaspa node answers on the group's network and its virtual DAA score moves, else 0.",
	"kaspa_node_virtual_daa_score":        "The signer's Kaspa node's virtual DAA score: a node behind its group's others shows a lower score.",
	"logs_rejected_total":                 "Contract logs the indexer refused as malformed, by chain.",
	"relay_rate_limited_total":            "Mints, refunds and claims the contract's rate limit deferred (each attempt), by purpose and reason (rate_limited: the bucket refills by itself; over_capacity: the amount is over the bucket's capacity).",
	"relay_paused":                        "1 while the relay is paused by an operator (bridgelog pause): it sends nothing, and indexes and confirms on; else 0.",
	"relay_paused_since_seconds":          "Unix time the standing pause was asked (0 when not paused): the alert on a forgotten pause reads it.",
	"mints_held":                          "Deposits whose mint the governor or an operator holds.",
	"mints_held_value":                    "The value (token units) of the deposits whose mint is held.",
	"relay_step_failures_total":           "Relay loop steps that returned an error, by step.",
	"reorged_observations_total":          "Observations whose block was replaced by a reorg, by chain.",
	"reorgs_beyond_window_total":          "Reorgs that replaced every block the indexer kept (deeper than the confirmation depth), by chain.",
	"reorgs_detected_total":               "Reorgs detected under the indexer's cursor, by chain.",
	"signer_console_refused_total":        "Console pages (/, /status, /audit) refused to a non-loopback client without the viewer credential, by reason (viewer_credential_missing, viewer_credential_wrong), and console connections closed because their address held too many (too_many_from_address).",
	"signer_mesh_handshakes_total":        "Handshakes of the signer's links to its peers, by peer and outcome (ok, wrong_version, wrong_group, unknown_member, unexpected_peer, bad_proof, refused_by_peer, malformed, failed).",
	"signer_mesh_messages_dropped_total":  "Messages to a peer that were not delivered (queue full, link lost), by peer and reason; anti-entropy recovers them.",
	"signer_mesh_messages_received_total": "Messages received from each peer.",
	"signer_mesh_messages_sent_total":     "Messages sent to each peer.",
	"signer_mesh_peer_connected":          "1 while the link to the peer is up, else 0, by peer.",
	"signer_mesh_reconnects_total":        "Links to a peer that came up after the first, by peer.",
	"signer_mesh_refused_total":           "Connections and links the signer's mesh turned away before the other side proved a member's key, by reason (too_many_connections, too_many_from_address, not_authenticated_in_time, compressed, and the TLS handshakes tls_unknown_key, tls_bad_certificate, tls_key_not_proven, tls_timeout, tls_failed); never by peer.",
	"signing_requests_refused_total":      "External signing event requests a signer refused (malformed, or its source not proven on its own node), by reason.",
	"signing_source_handed_total":         "Confirmed burns toward Kaspa handed to the signer, by stream (a restarted signer hands its streams over again).",
	"signing_source_invalid_total":        "Confirmed burns toward Kaspa that make no signing event, never handed over, by stream.",
	"withdrawals_executed_total":          "Withdrawals claimed on chain (including ones found already claimed).",
	"withdrawals_failed_total":            "Withdrawal claims that failed.",
}

// presetCounters exist at 0 from the start: alert rules take increase()
// over them, and a series born at 1 hides its first increment.
var presetCounters = []string{
	"anchor_failures_total", "batches_anchored_total", "batches_created_total", "batches_lost_total",
	"claim_attempts_failed_total", "claim_proofs_invalid_total",
	"claim_records_undecodable_total", "deposits_failed_total", "deposits_minted_total", "log_backup_failures_total",
	"withdrawals_executed_total", "withdrawals_failed_total", "refunds_completed_total", "refunds_failed_total",
}

func newHandlerMetrics(r *Registry) *HandlerMetrics {
	h := &HandlerMetrics{r: r, m: map[string]*dynamic{}}
	for _, name := range presetCounters {
		h.Count(name, nil, 0)
	}
	return h
}

// Count adds n to the counter name{labels}.
func (h *HandlerMetrics) Count(name string, labels map[string]string, n int) {
	if n < 0 {
		h.r.dropped(name, ReasonNegativeCount, fmt.Errorf("count %d", n))
		return
	}
	d, values := h.family(name, counterKind, labels)
	if d == nil {
		return
	}
	c, err := d.counter.GetMetricWithLabelValues(values...)
	if err != nil {
		h.r.dropped(name, ReasonLabelValue, err)
		return
	}
	c.Add(float64(n))
}

// Gauge sets the gauge name{labels} to v.
func (h *HandlerMetrics) Gauge(name string, labels map[string]string, v float64) {
	d, values := h.family(name, gaugeKind, labels)
	if d == nil {
		return
	}
	g, err := d.gauge.GetMetricWithLabelValues(values...)
	if err != nil {
		h.r.dropped(name, ReasonLabelValue, err)
		return
	}
	g.Set(v)
}

// family returns name's family and the label values in its key order, or
// nil after counting why the call cannot be recorded.
func (h *HandlerMetrics) family(name string, k kind, labels map[string]string) (*dynamic, []string) {
	h.mu.RLock()
	d := h.m[name]
	h.mu.RUnlock()
	if d == nil {
		d = h.create(name, k, labels)
	}
	if d.err != nil {
		h.r.dropped(name, d.reason, d.err)
		return nil, nil
	}
	if d.kind != k {
		h.r.dropped(name, ReasonKindMismatch, fmt.Errorf("%s used as %s, registered as %s", name, k, d.kind))
		return nil, nil
	}
	if len(labels) != len(d.keys) {
		h.r.dropped(name, ReasonLabelMismatch, fmt.Errorf("%s labels %v, registered with %v", name, sortedKeys(labels), d.keys))
		return nil, nil
	}
	values := make([]string, len(d.keys))
	for i, key := range d.keys {
		v, ok := labels[key]
		if !ok {
			h.r.dropped(name, ReasonLabelMismatch, fmt.Errorf("%s labels %v, registered with %v", name, sortedKeys(labels), d.keys))
			return nil, nil
		}
		values[i] = v
	}
	return d, values
}

// create registers name's family with the shape of this first call; a
// concurrent first call for the same name gets the winner's family.
func (h *HandlerMetrics) create(name string, k kind, labels map[string]string) *dynamic {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := h.m[name]; d != nil {
		return d
	}
	d := &dynamic{kind: k, keys: sortedKeys(labels)}
	h.m[name] = d
	full := name
	if !strings.HasPrefix(full, Prefix) {
		full = Prefix + name
	}
	if !model.LegacyValidation.IsValidMetricName(full) {
		d.reason, d.err = ReasonInvalidName, fmt.Errorf("metric name %q", full)
		return d
	}
	for _, key := range d.keys {
		// Legacy names keep the text format readable by every Prometheus;
		// "__" is reserved for Prometheus' own labels.
		if !model.LegacyValidation.IsValidLabelName(key) || strings.HasPrefix(key, "__") {
			d.reason, d.err = ReasonInvalidName, fmt.Errorf("label name %q of %s", key, full)
			return d
		}
	}
	help := handlerHelp[strings.TrimPrefix(name, Prefix)]
	if help == "" {
		help = "bridgelog handler " + d.kind.String() + " " + name + "."
	}
	var c prometheus.Collector
	if k == counterKind {
		d.counter = prometheus.NewCounterVec(prometheus.CounterOpts{Name: full, Help: help}, d.keys)
		c = d.counter
	} else {
		d.gauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: full, Help: help}, d.keys)
		c = d.gauge
	}
	if err := h.r.reg.Register(c); err != nil {
		// Most likely a clash with a fixed metric of this package.
		d.reason, d.err = ReasonRegister, fmt.Errorf("register %s: %w", full, err)
	}
	return d
}

func sortedKeys(labels map[string]string) []string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
