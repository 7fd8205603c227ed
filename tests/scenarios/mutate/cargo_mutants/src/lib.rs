pub fn is_first_party(endpoint: &str) -> bool {
    endpoint.starts_with("https://api.anthropic.com")
}

pub fn depth_limit() -> usize {
    8
}
