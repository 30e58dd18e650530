//! `open_url`'s address: credentials, schemes and the allowed domains (SPEC §5.8).

use super::{Guard, Judging};
use crate::engine::stop::Stop;
use crate::engine::Engine;
use crate::guard::url::vet_url;
use crate::guard::Rule;
use crate::request::Command;

pub(super) struct OpenUrl;

impl Guard for OpenUrl {
    fn rule(&self) -> Rule {
        Rule::Url
    }

    fn judge(&self, engine: &mut Engine, j: &mut Judging<'_, '_>) -> Result<(), Stop> {
        if let Command::OpenUrl { url } = &j.request.command {
            if let Err(why) = vet_url(url, &engine.config.url_policy) {
                return Err(self.refuse(why.to_string()));
            }
        }
        Ok(())
    }
}
