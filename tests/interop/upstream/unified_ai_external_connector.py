# Vendored unchanged (below the marker line) from catcatAI/Unified-AI-Project,
# apps/backend/src/core/hsp/external/external_connector.py at commit
# 45cb6f16d520bfc6e8a8d16ede91ee20a0c7058c (2026-08-23), for
# tests/interop/hsp_connector.py: the upstream's own HTTP sending code.
#
# MIT License
#
# Copyright (c) 2026 Angela AI Development Team
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
Real ExternalConnector for HSP - HTTP-based inter-process communication.

Enables agents running as subprocesses to communicate with each other
and with the central HSP message router.
"""

import logging
from typing import Any, Dict, Optional

logger = logging.getLogger(__name__)


class ExternalConnector:
    def __init__(
        self,
        config: Optional[Dict[str, Any]] = None,
        ai_id: Optional[str] = None,
        broker_address: Optional[str] = None,
        broker_port: Optional[int] = None,
    ):
        self.config = config or {}
        self.ai_id = ai_id or self.config.get("ai_id", "default")
        self.broker_address = broker_address or self.config.get("broker_address", "localhost")
        self.broker_port = broker_port or self.config.get("broker_port", 1883)
        logger.debug(f"ExternalConnector initialized (ai_id={self.ai_id})")

    async def connect(self) -> bool:
        """Connect to broker via HTTP health-check."""
        import aiohttp

        url = f"http://{self.broker_address}:{self.broker_port}/health"
        try:
            async with aiohttp.ClientSession() as session:
                async with session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
                    ok = resp.status == 200
                    logger.debug(f"ExternalConnector connect -> {resp.status} ({ok})")
                    return ok
        except Exception as e:
            logger.warning(f"ExternalConnector connect failed (broker may be down): {e}", exc_info=True)
            return False

    async def send(self, message: Dict[str, Any]) -> bool:
        """Send a message via HTTP POST to the broker."""
        import aiohttp

        url = f"http://{self.broker_address}:{self.broker_port}/message"
        try:
            async with aiohttp.ClientSession() as session:
                async with session.post(
                    url, json=message, timeout=aiohttp.ClientTimeout(total=10)
                ) as resp:
                    ok = resp.status == 200
                    logger.debug(f"ExternalConnector send -> {resp.status} ({ok})")
                    return ok
        except Exception as e:
            logger.warning(f"ExternalConnector send failed: {e}", exc_info=True)
            return False

    async def disconnect(self) -> None:
        self.config = {}
        logger.debug("ExternalConnector disconnected")
