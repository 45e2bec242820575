package topics

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// EncodePayload encodes an event body with msgpack. Struct fields are
// encoded by their msgpack tags; keep tags stable across schema versions.
func EncodePayload(v any) ([]byte, error) {
	b, err := msgpack.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode payload %T: %w", v, err)
	}
	return b, nil
}

// DecodePayload decodes an event body into v. Malformed bytes give an
// error wrapping ErrMalformed, never a panic.
func DecodePayload(b []byte, v any) error {
	if decodeLifecycle(b, v) {
		return nil
	}
	if err := msgpack.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: payload into %T: %v", ErrMalformed, v, err)
	}
	return nil
}
