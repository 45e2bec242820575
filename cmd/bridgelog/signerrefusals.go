package main

import (
	"net/http"
	"strings"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers/signing"
)

// refusalRoutes serves the signer's complete refusal certificates, which
// the relay verifies against the group's keys before it refunds a burn:
// GET /refusals lists them, GET /refusals/<id> is one, by signing event
// id, burn id (withdrawal_to_kaspa:evm:…) or the burn's log key
// (evm:<chain>:<tx>:<index>). They are public: each carries its quorum's
// signatures, and nothing of the signer is changed by reading them.
func refusalRoutes(mux *http.ServeMux, list func() []signing.Refusal) {
	mux.HandleFunc("GET /refusals", func(w http.ResponseWriter, _ *http.Request) {
		out := []domain.RefusalCertificate{}
		for _, r := range list() {
			if r.Complete {
				out = append(out, r.Certificate)
			}
		}
		writeJSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("GET /refusals/{id}", func(w http.ResponseWriter, req *http.Request) {
		id := strings.ToLower(req.PathValue("id"))
		for _, r := range list() {
			if !r.Complete || !refusalNamed(r, id) {
				continue
			}
			writeJSON(w, http.StatusOK, r.Certificate)
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no complete refusal certificate for " + id})
	})
}

// refusalNamed reports whether id names r's event or burn.
func refusalNamed(r signing.Refusal, id string) bool {
	burn := r.Certificate.Burn
	return id == r.EventID.Hex() || id == strings.ToLower(burn.WithdrawalToKaspaID()) || id == strings.ToLower(burn.Key())
}
