package signermesh

import (
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
)

// The service is declared here rather than generated from a .proto: it
// has one method whose messages are opaque frames, so there is nothing
// for protoc to generate but this descriptor.
const (
	serviceName = "bridgelog.signermesh.v1.Mesh"
	linkMethod  = "/" + serviceName + "/Link"
)

// linkServer is what the service descriptor dispatches to.
type linkServer interface {
	serveLink(stream grpc.ServerStream) error
}

// serviceDesc has one method, Link: the one bidirectional stream a pair
// of members keeps open (the handshake, then envelopes both ways).
var serviceDesc = grpc.ServiceDesc{
	ServiceName: serviceName,
	HandlerType: (*linkServer)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    "Link",
		ServerStreams: true,
		ClientStreams: true,
		Handler: func(srv any, stream grpc.ServerStream) error {
			return srv.(linkServer).serveLink(stream)
		},
	}},
	Metadata: "signermesh (no .proto: frames are raw bytes)",
}

// frameKind is the first byte of every frame.
type frameKind byte

const (
	frameHello     frameKind = 1 // version, group id, member id, nonce
	frameProof     frameKind = 2 // signature over the handshake transcript
	frameAccept    frameKind = 3 // the sender accepted the other's proof
	frameRefuse    frameKind = 4 // the sender refuses the link, and why
	frameEnvelope  frameKind = 5 // a sealed twophase envelope, opaque here
	frameFragment  frameKind = 6 // a part of an envelope too long for one frame; more follow
	frameChallenge frameKind = 7 // the accepting side's nonce, before it knows who dialled
)

func (k frameKind) String() string {
	switch k {
	case frameHello:
		return "hello"
	case frameProof:
		return "proof"
	case frameAccept:
		return "accept"
	case frameRefuse:
		return "refuse"
	case frameEnvelope:
		return "envelope"
	case frameFragment:
		return "fragment"
	case frameChallenge:
		return "challenge"
	}
	return fmt.Sprintf("frame_%d", byte(k))
}

// FrameOverhead is what framing adds to an envelope: its kind byte.
// (gRPC's own 5-byte message prefix is not counted by its size limits.)
const FrameOverhead = 1

// frame is one gRPC message of the link stream.
type frame struct {
	kind frameKind
	body []byte
}

// frameCodec makes gRPC carry frames as they are: a kind byte and the
// body, with no protobuf in between. The envelopes are already a signed,
// versioned binary encoding (twophase.Seal); wrapping them in a protobuf
// bytes field would only add a copy and a second schema. The codec is
// given to this mesh's server and calls only (ForceServerCodecV2,
// ForceCodecV2), never registered globally: kaspad's gRPC client in the
// same process needs "proto" to stay protobuf.
type frameCodec struct{}

var errNotFrame = errors.New("signermesh: message is not a frame")

func (frameCodec) Name() string { return "bridgelog-frame" }

// Marshal hands gRPC the kind byte and the body without copying the body.
func (frameCodec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*frame)
	if !ok {
		return nil, fmt.Errorf("%w: %T", errNotFrame, v)
	}
	out := mem.BufferSlice{mem.SliceBuffer{byte(f.kind)}}
	if len(f.body) > 0 {
		out = append(out, mem.SliceBuffer(f.body))
	}
	return out, nil
}

// Unmarshal copies the message out of gRPC's buffers, which are reused
// once it returns.
func (frameCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return fmt.Errorf("%w: %T", errNotFrame, v)
	}
	b := data.Materialize()
	if len(b) == 0 {
		return fmt.Errorf("%w: empty message", errNotFrame)
	}
	f.kind, f.body = frameKind(b[0]), b[1:]
	return nil
}
