package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// withdrawalToKaspaTopic is the token's WithdrawalToKaspa event; its first
// indexed argument is the burn id.
var withdrawalToKaspaTopic = crypto.Keccak256Hash([]byte("WithdrawalToKaspa(uint256,address,uint256,string)"))

func burnIDTopic(id uint64) common.Hash { return common.BigToHash(new(big.Int).SetUint64(id)) }

// logHider is a JSON-RPC proxy in front of an EVM node that drops one
// burn's WithdrawalToKaspa log from every eth_getLogs answer; everything
// else (receipts included) passes unchanged.
type logHider struct {
	target string
	srv    *httptest.Server
	topic  string // the hidden burn id's topic, 0x-hex

	mu      sync.Mutex
	dropped int
}

func startLogHider(t *testing.T, target string, burnID uint64) *logHider {
	h := &logHider{target: target, topic: burnIDTopic(burnID).Hex()}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *logHider) URL() string { return h.srv.URL }

// hidden is how many times the log was dropped from an answer.
func (h *logHider) hidden() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dropped
}

func (h *logHider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fwd, err := http.NewRequestWithContext(r.Context(), http.MethodPost, h.target, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fwd.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(fwd)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var call struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &call) == nil && call.Method == "eth_getLogs" {
		answer = h.filter(answer)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// filter drops the hidden log from an eth_getLogs answer (a batch, which
// the signer's client does not send, is passed as is).
func (h *logHider) filter(answer []byte) []byte {
	var msg map[string]json.RawMessage
	var logs []json.RawMessage
	if json.Unmarshal(answer, &msg) != nil || json.Unmarshal(msg["result"], &logs) != nil {
		return answer
	}
	kept := logs[:0]
	for _, l := range logs {
		var fields struct {
			Topics []string `json:"topics"`
		}
		if err := json.Unmarshal(l, &fields); err == nil && len(fields.Topics) > 1 &&
			strings.EqualFold(fields.Topics[0], withdrawalToKaspaTopic.Hex()) && strings.EqualFold(fields.Topics[1], h.topic) {
			h.mu.Lock()
			h.dropped++
			h.mu.Unlock()
			continue
		}
		kept = append(kept, l)
	}
	var err error
	if msg["result"], err = json.Marshal(kept); err != nil {
		panic(fmt.Sprintf("re-encoding logs: %v", err))
	}
	out, err := json.Marshal(msg)
	if err != nil {
		panic(fmt.Sprintf("re-encoding an answer: %v", err))
	}
	return out
}
