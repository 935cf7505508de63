#include "Replies.h"

#include <cstring>

#include "runtime-support/common/protocol.h"

namespace dspc::detail {

Reply decode_reply(const uint8_t* slot, size_t slot_bytes, uint32_t seq, uint16_t op) {
  dspc_proto_reply h;
  if (slot_bytes < sizeof h) throw MalformedReply{"shorter than a reply header"};
  std::memcpy(&h, slot, sizeof h);
  if (h.magic != DSPC_PROTO_REPLY_MAGIC) throw MalformedReply{"bad magic"};
  if (h.version != DSPC_PROTO_VERSION) throw MalformedReply{"bad version"};
  if (h.seq != seq) throw MalformedReply{"sequence number does not match the request's"};
  if (h.length < sizeof h || h.length > DSPC_PROTO_SLOT_BYTES || h.length > slot_bytes)
    throw MalformedReply{"length outside the reply slot"};
  if (h.error_bytes > DSPC_PROTO_MAX_ERROR || uint64_t(sizeof h) + h.payload_bytes + h.error_bytes != h.length)
    throw MalformedReply{"payload and error sizes do not add up to the length"};
  if (op && h.op != op) throw MalformedReply{"answers another operation"};
  const uint8_t* body = slot + sizeof h;
  return Reply{h.status, h.op, std::vector<uint8_t>(body, body + h.payload_bytes),
               std::string(reinterpret_cast<const char*>(body) + h.payload_bytes, h.error_bytes)};
}

uint64_t reply_u64(const Reply& r, size_t at, size_t bytes) {
  if (bytes > 8 || r.payload.size() < at || r.payload.size() - at < bytes) throw MalformedReply{"short payload"};
  uint64_t v = 0;
  std::memcpy(&v, r.payload.data() + at, bytes);
  return v;
}

uint64_t decode_alloc_reply(const Reply& r, uint64_t nbytes, uint64_t arena_bytes) {
  uint64_t offset = reply_u64(r, 0);
  if (offset > arena_bytes || nbytes > arena_bytes - offset) throw MalformedReply{"allocation outside the arena"};
  return offset;
}

Lookup decode_lookup_reply(const Reply& r) {
  dspc_proto_lookup_reply head;
  if (r.payload.size() < sizeof head) throw MalformedReply{"short lookup reply"};
  std::memcpy(&head, r.payload.data(), sizeof head);
  if (r.payload.size() != sizeof head + uint64_t(head.num_params) * sizeof(dspc_proto_param))
    throw MalformedReply{"lookup reply size"};
  Lookup out{head.function, {}};
  for (uint32_t i = 0; i < head.num_params; i++) {
    dspc_proto_param q;
    std::memcpy(&q, r.payload.data() + sizeof head + i * sizeof q, sizeof q);
    q.name[sizeof q.name - 1] = 0;
    if (q.ndim > DSPC_PROTO_MAX_NDIM) throw MalformedReply{"lookup reply: a parameter of rank above 8"};
    Param p{q.name, DType{q.type_code, q.bits}, q.is_output != 0, {}};
    for (uint32_t d = 0; d < q.ndim; d++) p.shape.push_back(q.shape[d]);
    out.params.push_back(std::move(p));
  }
  return out;
}

BatchReply decode_call_batch_reply(const Reply& r, uint32_t sent) {
  dspc_proto_call_batch_reply q;
  if (r.payload.size() < sizeof q) throw MalformedReply{"short call-batch reply"};
  std::memcpy(&q, r.payload.data(), sizeof q);
  if (q.done > sent || (q.done < sent && q.status == 0)) throw MalformedReply{"call-batch reply"};
  return {q.done, q.status};
}

}  // namespace dspc::detail
