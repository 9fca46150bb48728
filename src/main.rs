//! The `aiproto` binary: everything lives in the library; this only sets the exit code.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(aiproto::run(std::env::args_os()))
}
