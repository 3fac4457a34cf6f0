//! A server's command line written as one string, the way a user types it,
//! for the settings tests: `Settings::from_line("--threads virtual")`.

/// Parses settings from the words after the program's name.
pub trait FromLine: clap::Parser {
    /// `Self` from `flags`, split at white space (no quoting), or clap's
    /// error.
    fn from_line(flags: &str) -> Result<Self, clap::Error> {
        let program = Self::command().get_name().to_owned();
        let words = flags.split_whitespace().map(str::to_owned);
        Self::try_parse_from(std::iter::once(program).chain(words))
    }
}

impl<S: clap::Parser> FromLine for S {}
