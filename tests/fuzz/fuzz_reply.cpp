// Fuzz target: the host runtime's decoding of the device server's replies
// (runtime-support/host/Replies.cpp, what the Remote backend runs on every reply), as a server
// that is confused or hostile could write them.
//
// Input: byte 0 chooses the operation (bits 0-2: HELLO, ALLOC, LOAD, LOOKUP, CALL, CALL_BATCH,
// LAST_ERROR, or 0 for a raw message that any operation may answer). Unless bit 7 is set, the
// header's magic, version, sequence number and operation are made right, and unless bit 6 is
// set its length is made to add up, so that mutations reach the payload decoders. Bytes 1-4
// are the request's own number (ALLOC's size, CALL_BATCH's count of calls); the rest is the
// reply slot (at most DSPC_PROTO_SLOT_BYTES).
//
// A decoder may only answer with a value or MalformedReply; the value must then keep the
// protocol's promises (inside the slot, inside the arena, at most as many calls as were sent).
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "Replies.h"
#include "runtime-support/common/protocol.h"

namespace {

constexpr uint16_t kOps[8] = {DSPC_OP_HELLO, DSPC_OP_ALLOC, DSPC_OP_LOAD, DSPC_OP_LOOKUP,
                              DSPC_OP_CALL, DSPC_OP_CALL_BATCH, DSPC_OP_LAST_ERROR, 0};
constexpr uint64_t kArenaBytes = 64ull << 20;
constexpr uint32_t kSeq = 7;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dspc;
  using namespace dspc::detail;
  if (size < 5) return 0;
  uint8_t flags = data[0];
  uint16_t op = kOps[flags & 7];
  uint32_t number;
  std::memcpy(&number, data + 1, 4);
  std::vector<uint8_t> slot(data + 5, data + std::min<size_t>(size, 5 + DSPC_PROTO_SLOT_BYTES));
  if (!(flags & 0x80) && slot.size() >= sizeof(dspc_proto_reply)) {
    dspc_proto_reply h;
    std::memcpy(&h, slot.data(), sizeof h);
    h.magic = DSPC_PROTO_REPLY_MAGIC;
    h.version = DSPC_PROTO_VERSION;
    h.seq = kSeq;
    if (op) h.op = op;
    if (!(flags & 0x40)) {
      h.error_bytes %= DSPC_PROTO_MAX_ERROR + 1;
      uint64_t room = slot.size() - sizeof h;
      h.error_bytes = uint32_t(std::min<uint64_t>(h.error_bytes, room));
      h.payload_bytes = uint32_t(std::min<uint64_t>(h.payload_bytes, room - h.error_bytes));
      h.length = uint32_t(sizeof h + h.payload_bytes + h.error_bytes);
    }
    std::memcpy(slot.data(), &h, sizeof h);
  }
  try {
    Reply r = decode_reply(slot.data(), slot.size(), kSeq, op);
    if (sizeof(dspc_proto_reply) + r.payload.size() + r.error.size() > slot.size())
      fuzz::finding("a decoded reply is larger than its slot", "");
    if (r.error.size() > DSPC_PROTO_MAX_ERROR) fuzz::finding("error text above the limit", "");
    std::string outcome = "ok op " + std::to_string(r.op) + ", payload " + std::to_string(r.payload.size());
    switch (op) {
      case DSPC_OP_ALLOC: {
        uint64_t nbytes = number;
        uint64_t offset = decode_alloc_reply(r, nbytes, kArenaBytes);
        if (offset > kArenaBytes || offset + nbytes > kArenaBytes) fuzz::finding("allocation outside the arena", "");
        outcome += ", offset " + std::to_string(offset);
        break;
      }
      case DSPC_OP_LOAD:
      case DSPC_OP_CALL:
        outcome += ", value " + std::to_string(reply_u64(r, 0, 4));
        break;
      case DSPC_OP_HELLO:
        outcome += ", version " + std::to_string(reply_u64(r, 0, 4)) + ", VTCM " + std::to_string(reply_u64(r, 4));
        break;
      case DSPC_OP_LOOKUP: {
        Lookup l = decode_lookup_reply(r);
        for (const Param& p : l.params) {
          if (p.shape.size() > DSPC_PROTO_MAX_NDIM) fuzz::finding("a parameter of rank above 8", "");
          if (p.name.size() >= 32) fuzz::finding("a parameter name of 32 bytes or more", "");
        }
        outcome += ", " + std::to_string(l.params.size()) + " parameters";
        break;
      }
      case DSPC_OP_CALL_BATCH: {
        uint32_t sent = number % 1024;
        BatchReply b = decode_call_batch_reply(r, sent);
        if (b.done > sent || (b.done < sent && b.status == 0)) fuzz::finding("an impossible call-batch reply", "");
        outcome += ", " + std::to_string(b.done) + " of " + std::to_string(sent) + " calls";
        break;
      }
      default:
        break;
    }
    fuzz::report(outcome);
  } catch (const MalformedReply& m) {
    if (m.what.empty()) fuzz::finding("MalformedReply without a reason", "");
    fuzz::report("malformed: " + m.what);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("exception escaped the reply decoders: ") + e.what(), "");
  }
  return 0;
}
