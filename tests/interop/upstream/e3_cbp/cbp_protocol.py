# Vendored unchanged (below the marker line) from bodhifreeman-ux/E3,
# CSDL-ANLT/src/cbp/cbp_protocol.py at commit
# 437e9b8a37ad997f2f0c8202383bda99ba6b47fc (2026-01-07), for
# tests/interop/e3_cbp.py: the upstream's own CBP encoder and decoder.
#
# MIT License
#
# Copyright (c) 2026 bodhifreeman-ux
#
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
#
# The above copyright notice and this permission notice shall be included in all
# copies or substantial portions of the Software.
#
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
# SOFTWARE.
# ---- upstream file below ----
"""
CSDL Binary Protocol (CBP) - Core Implementation
=================================================
World's first binary protocol for LLM agent communication.
Achieves 90%+ compression vs JSON through:
1. MessagePack binary serialization
2. Numeric field IDs (1 byte vs string keys)
3. Semantic deduplication (hash-based)
4. Delta encoding (only transmit changes)
5. Optional LZ4 compression

Copyright 2025 LUBTFY. Patent pending.
"""

import struct
import time
import logging
from typing import Dict, Any, Optional, Tuple, Union
from dataclasses import dataclass, field
from datetime import datetime

import msgpack
import xxhash
import lz4.frame

from .cbp_schema import (
    CBP_MAGIC, CBP_VERSION,
    FLAG_IS_DELTA, FLAG_HAS_HASH, FLAG_COMPRESSED,
    AgentID, MessageType, FieldID, TaskID, Priority,
    AGENT_NAME_TO_ID, AGENT_ID_TO_NAME,
    MESSAGE_TYPE_TO_ID, MESSAGE_ID_TO_TYPE,
    FIELD_NAME_TO_ID, FIELD_ID_TO_NAME,
    TASK_NAME_TO_ID, TASK_ID_TO_NAME,
    PRIORITY_NAME_TO_ID, PRIORITY_ID_TO_NAME,
)

logger = logging.getLogger("jarvis.cbp")


# ═══════════════════════════════════════════════════════════════════════
# Semantic Registry (Deduplication)
# ═══════════════════════════════════════════════════════════════════════

class SemanticRegistry:
    """
    Content-addressed storage for message deduplication.

    When the same content is transmitted multiple times in a pipeline
    (A→B→C), we store it once and transmit hash references.
    """

    def __init__(self, max_entries: int = 10000):
        self.store: Dict[int, bytes] = {}
        self.refs: Dict[int, int] = {}
        self.timestamps: Dict[int, float] = {}
        self.max_entries = max_entries
        self._hits = 0
        self._misses = 0

    def hash(self, data: bytes) -> int:
        """Compute 64-bit xxHash of content"""
        return xxhash.xxh64(data).intdigest()

    def store_or_ref(self, data: bytes) -> Tuple[int, bool, int]:
        """
        Store content or return reference if already exists.

        Returns: (hash, is_new, bytes_saved)
        """
        h = self.hash(data)

        if h in self.store:
            self.refs[h] += 1
            self._hits += 1
            bytes_saved = len(data) - 8  # Only transmit 8-byte hash
            return h, False, bytes_saved

        # Evict oldest if at capacity
        if len(self.store) >= self.max_entries:
            self._evict_oldest()

        self.store[h] = data
        self.refs[h] = 1
        self.timestamps[h] = time.time()
        self._misses += 1
        return h, True, 0

    def get(self, h: int) -> Optional[bytes]:
        """Retrieve content by hash"""
        return self.store.get(h)

    def _evict_oldest(self):
        """Remove oldest entry when at capacity"""
        if not self.timestamps:
            return
        oldest_hash = min(self.timestamps, key=self.timestamps.get)
        del self.store[oldest_hash]
        del self.refs[oldest_hash]
        del self.timestamps[oldest_hash]

    def get_stats(self) -> Dict[str, Any]:
        """Return deduplication statistics"""
        total = self._hits + self._misses
        hit_rate = (self._hits / total * 100) if total > 0 else 0
        return {
            "entries": len(self.store),
            "hits": self._hits,
            "misses": self._misses,
            "hit_rate_percent": round(hit_rate, 2),
            "total_refs": sum(self.refs.values()),
        }

    def clear(self):
        """Clear all entries"""
        self.store.clear()
        self.refs.clear()
        self.timestamps.clear()
        self._hits = 0
        self._misses = 0


# Global registry instance
_registry = SemanticRegistry()


def get_registry() -> SemanticRegistry:
    """Get global semantic registry"""
    return _registry


# ═══════════════════════════════════════════════════════════════════════
# CBP Message Classes
# ═══════════════════════════════════════════════════════════════════════

@dataclass
class CBPMetrics:
    """Metrics for a single encode/decode operation"""
    original_bytes: int = 0
    encoded_bytes: int = 0
    compression_ratio: float = 0.0
    reduction_percent: float = 0.0
    encoding_time_ms: float = 0.0
    used_dedup: bool = False
    used_delta: bool = False
    used_lz4: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return {
            "original_bytes": self.original_bytes,
            "encoded_bytes": self.encoded_bytes,
            "compression_ratio": round(self.compression_ratio, 2),
            "reduction_percent": round(self.reduction_percent, 2),
            "encoding_time_ms": round(self.encoding_time_ms, 3),
            "used_dedup": self.used_dedup,
            "used_delta": self.used_delta,
            "used_lz4": self.used_lz4,
        }


@dataclass
class CBPMessage:
    """
    Binary-encoded agent message.

    Instead of JSON:
        {"type": "handoff", "sender": "Analyzer", "receiver": "Strategist", ...}

    We encode as:
        [0x04, 0x01, 0x02, ...]  (3 bytes vs 60+ bytes)
    """
    msg_type: int
    sender: int
    receiver: int
    content: Dict[str, Any] = field(default_factory=dict)
    metadata: Dict[str, Any] = field(default_factory=dict)
    timestamp: float = field(default_factory=time.time)
    message_id: Optional[int] = None
    priority: int = Priority.NORMAL

    # Delta encoding
    delta_ref: Optional[int] = None  # Hash of base message
    is_delta: bool = False

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> 'CBPMessage':
        """Create CBPMessage from JSON-like dict"""
        # Convert string type to ID
        msg_type = data.get("type") or data.get("t")
        if isinstance(msg_type, str):
            msg_type = MESSAGE_TYPE_TO_ID.get(msg_type, MessageType.REQUEST)

        # Convert string sender/receiver to IDs
        sender = data.get("sender") or data.get("s", "unknown")
        if isinstance(sender, str):
            sender = AGENT_NAME_TO_ID.get(sender.lower(), AgentID.UNKNOWN)

        receiver = data.get("receiver") or data.get("r", "unknown")
        if isinstance(receiver, str):
            receiver = AGENT_NAME_TO_ID.get(receiver.lower(), AgentID.UNKNOWN)

        # Convert priority
        priority = data.get("priority") or data.get("p", "normal")
        if isinstance(priority, str):
            priority = PRIORITY_NAME_TO_ID.get(priority.lower(), Priority.NORMAL)

        return cls(
            msg_type=msg_type,
            sender=sender,
            receiver=receiver,
            content=data.get("content") or data.get("c", {}),
            metadata=data.get("metadata") or data.get("m", {}),
            timestamp=data.get("timestamp") or data.get("ts", time.time()),
            message_id=data.get("message_id") or data.get("id"),
            priority=priority,
        )

    def to_dict(self) -> Dict[str, Any]:
        """Convert to human-readable dict"""
        return {
            "type": MESSAGE_ID_TO_TYPE.get(self.msg_type, "unknown"),
            "sender": AGENT_ID_TO_NAME.get(self.sender, "unknown"),
            "receiver": AGENT_ID_TO_NAME.get(self.receiver, "unknown"),
            "content": self.content,
            "metadata": self.metadata,
            "timestamp": self.timestamp,
            "message_id": self.message_id,
            "priority": PRIORITY_ID_TO_NAME.get(self.priority, "normal"),
        }


# ═══════════════════════════════════════════════════════════════════════
# CBP Encoder
# ═══════════════════════════════════════════════════════════════════════

class CBPEncoder:
    """
    Encodes messages to CBP binary format.

    Encoding pipeline:
    1. Convert string keys to numeric IDs
    2. Serialize with MessagePack
    3. Optionally compress with LZ4
    4. Check dedup registry
    5. Wrap in CBP frame
    """

    def __init__(
        self,
        use_dedup: bool = True,
        use_lz4: bool = True,
        lz4_threshold: int = 256,  # Only compress if > 256 bytes
        registry: Optional[SemanticRegistry] = None,
    ):
        self.use_dedup = use_dedup
        self.use_lz4 = use_lz4
        self.lz4_threshold = lz4_threshold
        self.registry = registry or get_registry()

        # Statistics
        self._total_original = 0
        self._total_encoded = 0
        self._message_count = 0

    def encode(
        self,
        message: Union[CBPMessage, Dict[str, Any]],
        delta_base: Optional[int] = None,
    ) -> Tuple[bytes, CBPMetrics]:
        """
        Encode a message to CBP binary format.

        Args:
            message: CBPMessage or dict to encode
            delta_base: Hash of base message for delta encoding

        Returns:
            (encoded_bytes, metrics)
        """
        start_time = time.time()
        metrics = CBPMetrics()

        # Convert dict to CBPMessage if needed
        if isinstance(message, dict):
            message = CBPMessage.from_dict(message)

        # Step 1: Build compact structure with numeric IDs
        compact = self._to_compact(message)

        # Step 2: Serialize with MessagePack
        payload = msgpack.packb(compact, use_bin_type=True)
        metrics.original_bytes = len(payload)

        # Step 3: Check dedup registry
        flags = 0
        if self.use_dedup:
            h, is_new, bytes_saved = self.registry.store_or_ref(payload)
            if not is_new:
                # Return reference instead of full payload
                metrics.used_dedup = True
                payload = struct.pack(">Q", h)  # 8-byte hash
                flags |= FLAG_HAS_HASH

        # Step 4: LZ4 compression (if payload still large)
        if self.use_lz4 and len(payload) > self.lz4_threshold and not metrics.used_dedup:
            compressed = lz4.frame.compress(payload)
            if len(compressed) < len(payload):
                payload = compressed
                flags |= FLAG_COMPRESSED
                metrics.used_lz4 = True

        # Step 5: Delta encoding
        if delta_base is not None:
            flags |= FLAG_IS_DELTA
            metrics.used_delta = True
            # Prepend base reference
            payload = struct.pack(">Q", delta_base) + payload

        # Step 6: Wrap in CBP frame
        frame = self._build_frame(payload, flags)

        # Calculate metrics
        metrics.encoded_bytes = len(frame)
        metrics.compression_ratio = metrics.original_bytes / metrics.encoded_bytes if metrics.encoded_bytes > 0 else 0
        metrics.reduction_percent = (1 - metrics.encoded_bytes / metrics.original_bytes) * 100 if metrics.original_bytes > 0 else 0
        metrics.encoding_time_ms = (time.time() - start_time) * 1000

        # Update totals
        self._total_original += metrics.original_bytes
        self._total_encoded += metrics.encoded_bytes
        self._message_count += 1

        return frame, metrics

    def _to_compact(self, msg: CBPMessage) -> Dict[int, Any]:
        """Convert CBPMessage to compact format with numeric keys"""
        compact = {
            FieldID.TYPE: msg.msg_type,
            FieldID.SENDER: msg.sender,
            FieldID.RECEIVER: msg.receiver,
            FieldID.TIMESTAMP: int(msg.timestamp),
            FieldID.PRIORITY: msg.priority,
        }

        if msg.content:
            compact[FieldID.CONTENT] = self._compact_dict(msg.content)

        if msg.metadata:
            compact[FieldID.METADATA] = self._compact_dict(msg.metadata)

        if msg.message_id:
            compact[FieldID.MESSAGE_ID] = msg.message_id

        if msg.delta_ref:
            compact[FieldID.DELTA_REF] = msg.delta_ref

        return compact

    def _compact_dict(self, d: Dict[str, Any]) -> Dict[int, Any]:
        """Recursively convert string keys to numeric IDs"""
        result = {}
        for k, v in d.items():
            # Convert key to ID if possible
            key_id = FIELD_NAME_TO_ID.get(k.lower())
            if key_id is None:
                # Keep as string for unknown keys (rare)
                key_id = k

            # Recursively compact nested dicts
            if isinstance(v, dict):
                v = self._compact_dict(v)
            elif isinstance(v, list):
                v = [self._compact_dict(item) if isinstance(item, dict) else item for item in v]

            result[key_id] = v

        return result

    def _build_frame(self, payload: bytes, flags: int) -> bytes:
        """Build CBP frame with header"""
        # Calculate CRC16 of payload
        crc = self._crc16(payload)

        # Frame: Magic(2) + Version(1) + Flags(1) + Length(2) + CRC(2) + Payload
        header = struct.pack(
            ">2sBBHH",
            CBP_MAGIC,
            CBP_VERSION,
            flags,
            len(payload),
            crc,
        )
        return header + payload

    @staticmethod
    def _crc16(data: bytes) -> int:
        """Simple CRC16 checksum"""
        crc = 0xFFFF
        for byte in data:
            crc ^= byte << 8
            for _ in range(8):
                if crc & 0x8000:
                    crc = (crc << 1) ^ 0x1021
                else:
                    crc <<= 1
                crc &= 0xFFFF
        return crc

    def get_stats(self) -> Dict[str, Any]:
        """Get encoder statistics"""
        overall_reduction = (1 - self._total_encoded / self._total_original) * 100 if self._total_original > 0 else 0
        return {
            "message_count": self._message_count,
            "total_original_bytes": self._total_original,
            "total_encoded_bytes": self._total_encoded,
            "overall_reduction_percent": round(overall_reduction, 2),
            "registry_stats": self.registry.get_stats(),
        }


# ═══════════════════════════════════════════════════════════════════════
# CBP Decoder
# ═══════════════════════════════════════════════════════════════════════

class CBPDecoder:
    """
    Decodes CBP binary format back to messages.
    """

    def __init__(self, registry: Optional[SemanticRegistry] = None):
        self.registry = registry or get_registry()

    def decode(self, frame: bytes) -> Tuple[CBPMessage, CBPMetrics]:
        """
        Decode CBP frame to message.

        Args:
            frame: CBP encoded bytes

        Returns:
            (message, metrics)
        """
        start_time = time.time()
        metrics = CBPMetrics()
        metrics.encoded_bytes = len(frame)

        # Parse header
        if len(frame) < 8:
            raise ValueError("Frame too short")

        magic, version, flags, length, crc = struct.unpack(">2sBBHH", frame[:8])

        if magic != CBP_MAGIC:
            raise ValueError(f"Invalid magic: {magic}")

        if version != CBP_VERSION:
            raise ValueError(f"Unsupported version: {version}")

        payload = frame[8:]

        if len(payload) != length:
            raise ValueError(f"Length mismatch: expected {length}, got {len(payload)}")

        # Verify CRC
        if CBPEncoder._crc16(payload) != crc:
            raise ValueError("CRC mismatch")

        # Handle delta reference
        delta_ref = None
        if flags & FLAG_IS_DELTA:
            delta_ref = struct.unpack(">Q", payload[:8])[0]
            payload = payload[8:]
            metrics.used_delta = True

        # Handle dedup reference
        if flags & FLAG_HAS_HASH:
            h = struct.unpack(">Q", payload)[0]
            payload = self.registry.get(h)
            if payload is None:
                raise ValueError(f"Hash not found in registry: {h}")
            metrics.used_dedup = True

        # Decompress if needed
        if flags & FLAG_COMPRESSED:
            payload = lz4.frame.decompress(payload)
            metrics.used_lz4 = True

        # Unpack MessagePack (allow integer keys for our schema)
        compact = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        metrics.original_bytes = len(payload)

        # Convert back to CBPMessage
        message = self._from_compact(compact)
        message.delta_ref = delta_ref

        metrics.encoding_time_ms = (time.time() - start_time) * 1000
        metrics.compression_ratio = metrics.original_bytes / metrics.encoded_bytes if metrics.encoded_bytes > 0 else 0

        return message, metrics

    def _from_compact(self, compact: Dict[int, Any]) -> CBPMessage:
        """Convert compact format back to CBPMessage"""
        return CBPMessage(
            msg_type=compact.get(FieldID.TYPE, MessageType.REQUEST),
            sender=compact.get(FieldID.SENDER, AgentID.UNKNOWN),
            receiver=compact.get(FieldID.RECEIVER, AgentID.UNKNOWN),
            content=self._expand_dict(compact.get(FieldID.CONTENT, {})),
            metadata=self._expand_dict(compact.get(FieldID.METADATA, {})),
            timestamp=float(compact.get(FieldID.TIMESTAMP, time.time())),
            message_id=compact.get(FieldID.MESSAGE_ID),
            priority=compact.get(FieldID.PRIORITY, Priority.NORMAL),
        )

    def _expand_dict(self, d: Union[Dict, Any]) -> Dict[str, Any]:
        """Recursively convert numeric IDs back to string keys"""
        if not isinstance(d, dict):
            return d

        result = {}
        for k, v in d.items():
            # Convert ID to name if possible
            if isinstance(k, int):
                key_name = FIELD_ID_TO_NAME.get(k, f"field_{k}")
            else:
                key_name = k

            # Recursively expand nested dicts
            if isinstance(v, dict):
                v = self._expand_dict(v)
            elif isinstance(v, list):
                v = [self._expand_dict(item) if isinstance(item, dict) else item for item in v]

            result[key_name] = v

        return result


# ═══════════════════════════════════════════════════════════════════════
# Convenience Functions
# ═══════════════════════════════════════════════════════════════════════

# ═══════════════════════════════════════════════════════════════════════
# Delta Encoder - Only transmit changes between messages
# ═══════════════════════════════════════════════════════════════════════

class DeltaEncoder:
    """
    Computes delta between messages for maximum compression.

    Instead of retransmitting the same analysis from Analyzer→Strategist→Critic,
    we transmit only the NEW fields added by each agent.
    """

    def __init__(self, registry: Optional[SemanticRegistry] = None):
        self.registry = registry or get_registry()
        self.base_messages: Dict[int, Dict] = {}  # hash -> original dict

    def compute_delta(
        self,
        current: Dict[str, Any],
        base_hash: Optional[int] = None,
    ) -> Tuple[Dict[str, Any], Optional[int], int]:
        """
        Compute delta from base message.

        Returns: (delta_dict, base_hash, bytes_saved)
        """
        if base_hash is None or base_hash not in self.base_messages:
            # No base - store current as new base
            current_bytes = msgpack.packb(current, use_bin_type=True)
            h = self.registry.hash(current_bytes)
            self.base_messages[h] = current
            return current, None, 0

        base = self.base_messages[base_hash]
        delta = self._diff(base, current)

        # Calculate savings
        full_size = len(json.dumps(current))
        delta_size = len(json.dumps(delta)) + 8  # +8 for hash reference
        bytes_saved = full_size - delta_size

        # Store current as potential future base
        current_bytes = msgpack.packb(current, use_bin_type=True)
        h = self.registry.hash(current_bytes)
        self.base_messages[h] = current

        return delta, base_hash, max(0, bytes_saved)

    def _diff(self, base: Dict, current: Dict) -> Dict:
        """Compute difference between two dicts"""
        delta = {}

        for key, value in current.items():
            if key not in base:
                # New key
                delta[key] = value
            elif base[key] != value:
                if isinstance(value, dict) and isinstance(base.get(key), dict):
                    # Recursive diff for nested dicts
                    nested_delta = self._diff(base[key], value)
                    if nested_delta:
                        delta[key] = nested_delta
                else:
                    # Changed value
                    delta[key] = value

        return delta

    def reconstruct(self, delta: Dict, base_hash: int) -> Dict:
        """Reconstruct full message from delta and base"""
        if base_hash not in self.base_messages:
            raise ValueError(f"Base message not found: {base_hash}")

        base = self.base_messages[base_hash].copy()
        return self._merge(base, delta)

    def _merge(self, base: Dict, delta: Dict) -> Dict:
        """Merge delta into base"""
        result = base.copy()

        for key, value in delta.items():
            if isinstance(value, dict) and isinstance(result.get(key), dict):
                result[key] = self._merge(result[key], value)
            else:
                result[key] = value

        return result


# Global delta encoder
_delta_encoder = DeltaEncoder()


def get_delta_encoder() -> DeltaEncoder:
    return _delta_encoder


# Singleton encoder/decoder
_encoder = CBPEncoder()
_decoder = CBPDecoder()


def encode_message(
    message: Union[CBPMessage, Dict[str, Any]],
    delta_base: Optional[int] = None,
) -> Tuple[bytes, CBPMetrics]:
    """Encode a message using global encoder"""
    return _encoder.encode(message, delta_base)


def decode_message(frame: bytes) -> Tuple[CBPMessage, CBPMetrics]:
    """Decode a frame using global decoder"""
    return _decoder.decode(frame)


def get_encoder() -> CBPEncoder:
    """Get global encoder"""
    return _encoder


def get_decoder() -> CBPDecoder:
    """Get global decoder"""
    return _decoder


def compare_json_vs_cbp(data: Dict[str, Any]) -> Dict[str, Any]:
    """
    Compare JSON vs CBP encoding for a message.
    Returns detailed comparison metrics.
    """
    import json

    # JSON encoding
    json_bytes = json.dumps(data).encode('utf-8')
    json_size = len(json_bytes)

    # CBP encoding
    cbp_bytes, metrics = encode_message(data)
    cbp_size = len(cbp_bytes)

    reduction = (1 - cbp_size / json_size) * 100 if json_size > 0 else 0

    return {
        "json_bytes": json_size,
        "cbp_bytes": cbp_size,
        "reduction_percent": round(reduction, 2),
        "compression_ratio": round(json_size / cbp_size, 2) if cbp_size > 0 else 0,
        "cbp_metrics": metrics.to_dict(),
    }
