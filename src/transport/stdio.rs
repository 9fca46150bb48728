//! `-`: messages written to stdout, or read once from stdin.

use std::io::Write;

use super::{Answer, Ended, Listen, OnArrival, Outgoing, Transport, TransportError};

pub struct Stdio;

impl Transport for Stdio {
    fn send(
        &mut self,
        messages: &[Outgoing],
        _on_reply: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), TransportError> {
        let mut out = std::io::stdout().lock();
        out.write_all(super::joined(messages).as_bytes())
            .and_then(|()| out.flush())
            .map_err(|source| TransportError::Io {
                path: "<stdout>".into(),
                source,
            })
    }

    fn receive(
        &mut self,
        _listen: &Listen,
        on_arrival: &mut OnArrival<'_>,
    ) -> Result<Ended, TransportError> {
        let source = crate::input::Input::Stdin.read()?;
        let text = source.text;
        let Answer { stop, .. } = on_arrival(super::Arrival {
            origin: "<stdin>",
            topic: None,
            text: &text,
            snapshot: false,
            properties: None,
        })
        .map_err(TransportError::Handler)?;
        Ok(if stop {
            Ended::Stopped
        } else {
            Ended::Exhausted
        })
    }
}
