package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// GET /refusals lists complete certificates only; GET /refusals/<id>
// finds one by event id, burn id or log key, and 404s an incomplete one.
func TestRefusalRoutes(t *testing.T) {
	ref := domain.LogRef{ChainID: 1, TxHash: domain.Hash32{0xab}, LogIndex: 3}
	done := signing.Refusal{EventID: twophase.Hash{1}, Complete: true,
		Certificate: domain.RefusalCertificate{GroupID: "g", Burn: ref, Reason: "not_an_address",
			Signatures: []domain.MemberSignature{{Member: "s1", Signature: []byte{1}}}}}
	open := signing.Refusal{EventID: twophase.Hash{2}, Certificate: domain.RefusalCertificate{GroupID: "g",
		Burn: domain.LogRef{ChainID: 1, TxHash: domain.Hash32{0xcd}}}}
	mux := http.NewServeMux()
	refusalRoutes(mux, func() []signing.Refusal { return []signing.Refusal{done, open} })
	get := func(path string) (int, []byte) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.Bytes()
	}
	code, body := get("/refusals")
	var list []domain.RefusalCertificate
	if err := json.Unmarshal(body, &list); code != 200 || err != nil || len(list) != 1 || list[0].Burn != ref {
		t.Fatalf("GET /refusals: %d %s (%v)", code, body, err)
	}
	for _, id := range []string{done.EventID.Hex(), ref.WithdrawalToKaspaID(), ref.Key()} {
		code, body := get("/refusals/" + id)
		var c domain.RefusalCertificate
		if err := json.Unmarshal(body, &c); code != 200 || err != nil || c.Reason != "not_an_address" || len(c.Signatures) != 1 {
			t.Errorf("GET /refusals/%s: %d %s", id, code, body)
		}
	}
	if code, _ := get("/refusals/" + open.EventID.Hex()); code != http.StatusNotFound {
		t.Errorf("incomplete certificate served: %d", code)
	}
}
