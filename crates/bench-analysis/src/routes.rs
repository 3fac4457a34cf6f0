//! Which of the contract's routes a request path is counted under: how a
//! saved column's path (and its background's) names the routes whose
//! detector figures it holds.

/// The `route` label a request path is counted under: the contract's route
/// pattern whose segments match the path's, `{...}` matching any one
/// segment ("/users/1/blocking" -> "/users/{id}/blocking"; a query is
/// ignored). `None` for a path no route has.
pub fn route_pattern(path: &str) -> Option<&'static str> {
    let path = path.split('?').next().unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    contract::routes::ROUTES
        .iter()
        .map(|r| r.pattern)
        .find(|pattern| {
            let want: Vec<&str> = pattern.split('/').collect();
            want.len() == segments.len()
                && want
                    .iter()
                    .zip(&segments)
                    .all(|(w, s)| w == s || (w.starts_with('{') && w.ends_with('}')))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_their_route_label() {
        assert_eq!(
            route_pattern("/users/1/blocking"),
            Some("/users/{id}/blocking")
        );
        assert_eq!(route_pattern("/users/{rand:1-10000}"), Some("/users/{id}"));
        assert_eq!(route_pattern("/cpu?n=1000000"), Some("/cpu"));
        assert_eq!(route_pattern("/cpu/rayon?n=5"), Some("/cpu/rayon"));
        assert_eq!(route_pattern("/posts/1"), Some("/posts/{id}"));
        assert_eq!(route_pattern("/health"), Some("/health"));
        assert_eq!(route_pattern("/nope/1"), None);
    }
}
