//! The `aiproto` binary: everything lives in the library; this only sets the exit code.

/// mimalloc rather than the system's allocator: parsing and checking
/// messages on every core allocates small objects by the million, where
/// glibc's malloc spent a third of `validate`'s time (measured with perf).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(aiproto::run(std::env::args_os()))
}
