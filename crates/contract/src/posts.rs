//! `GET /posts/{id}`: seed 001's slow downstream call and its error path.
//!
//! The wait itself is the servers' business — a sleeping thread in one, a timer
//! in the other — so this module only says how long and what to answer after.

use std::time::Duration;

use crate::model::Post;
use crate::ApiError;

/// How long the "downstream call" takes (seed 001: 300 ms).
pub const POST_DELAY: Duration = Duration::from_millis(300);

/// The first id that fails, as seed 001's controller throws for `id >= 10`.
pub const FIRST_FAILING_POST_ID: i64 = 10;

/// What `/posts/{id}` answers once the delay is over.
pub fn post_after_delay(id: i64) -> Result<Post, ApiError> {
    if id >= FIRST_FAILING_POST_ID {
        return Err(ApiError::new(
            crate::error::ErrorKind::Internal,
            format!("post {id} failed (ids from {FIRST_FAILING_POST_ID} fail on purpose, as in seed 001)"),
        ));
    }
    Ok(Post {
        id,
        content: format!("Post content is {id}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_below_ten_succeed_and_the_rest_fail_with_500() {
        assert_eq!(post_after_delay(1).unwrap().content, "Post content is 1");
        assert_eq!(post_after_delay(9).unwrap().id, 9);
        assert_eq!(post_after_delay(10).unwrap_err().status(), 500);
        assert_eq!(post_after_delay(i64::MAX).unwrap_err().status(), 500);
    }
}
