#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;

use super::*;

fn list(entries: &[&str]) -> AllowedDomains {
    AllowedDomains::parse_each(entries).unwrap()
}

async fn serve() -> u16 {
    let app = Router::new()
        .route(
            "/page",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><head><title>T</title></head><body><h1>Quarterly notes</h1><p>Revenue rose.</p></body></html>",
                )
            }),
        )
        .route("/big", get(|| async { "x".repeat(5000) }))
        .route("/away", get(|| async { Redirect::temporary("http://elsewhere.invalid/") }))
        .route("/loop", get(|| async { Redirect::temporary("/loop") }))
        .route("/local", get(|| async { Redirect::temporary("/page?token=s3cret") }))
        .route(
            "/image",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], vec![0u8; 10]).into_response() }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

#[tokio::test]
async fn fetches_allowed_pages_and_refuses_the_rest() {
    let port = serve().await;
    let allowed = list(&["127.0.0.1"]);
    let base = format!("http://127.0.0.1:{port}");

    let page = fetch_page(&format!("{base}/page"), &allowed, 200_000)
        .await
        .unwrap();
    assert!(
        page.starts_with(&format!("Source: {base}/page\n\n")),
        "{page}"
    );
    assert!(
        page.contains("Quarterly notes") && page.contains("Revenue rose."),
        "{page}"
    );

    let redirected = fetch_page(&format!("{base}/local"), &allowed, 200_000)
        .await
        .unwrap();
    assert!(
        redirected.starts_with(&format!("Source: {base}/page?token=REDACTED\n")),
        "{redirected}"
    );

    let big = fetch_page(&format!("{base}/big"), &allowed, 1000)
        .await
        .unwrap();
    assert!(big.contains("only its first 1000 bytes were read"), "{big}");
    assert_eq!(big.rsplit_once("\n\n").unwrap().1, "x".repeat(1000));

    let away = fetch_page(&format!("{base}/away"), &allowed, 1000)
        .await
        .unwrap_err();
    assert_eq!(
        away.message,
        format!(
            "{base}/away redirected to http://elsewhere.invalid/, and web access to 'elsewhere.invalid' is not allowed"
        )
    );
    let looping = fetch_page(&format!("{base}/loop"), &allowed, 1000)
        .await
        .unwrap_err();
    assert_eq!(looping.message, "the page redirected more than 5 times");
    let image = fetch_page(&format!("{base}/image"), &allowed, 1000)
        .await
        .unwrap_err();
    assert!(
        image.message.contains("not a text page (it is image/png)"),
        "{}",
        image.message
    );
    let missing = fetch_page(&format!("{base}/nothing"), &allowed, 1000)
        .await
        .unwrap_err();
    assert_eq!(
        missing.message,
        format!("could not fetch {base}/nothing: HTTP 404 Not Found")
    );

    // localhost listed by name reaches loopback; a name not listed is refused before any request.
    let by_name = fetch_page(
        &format!("http://localhost:{port}/page"),
        &list(&["localhost"]),
        1000,
    )
    .await
    .unwrap();
    assert!(by_name.contains("Quarterly notes"));
    let refused = fetch_page(&format!("http://localhost:{port}/page"), &allowed, 1000)
        .await
        .unwrap_err();
    assert_eq!(refused.message, "web access to 'localhost' is not allowed");
    assert!(
        fetch_page("not a url", &allowed, 10)
            .await
            .unwrap_err()
            .message
            .contains("is not a URL")
    );
}

#[tokio::test]
async fn a_listed_name_that_resolves_to_loopback_is_refused() {
    // The resolver checks what a name resolves to, whatever the allow list says about the name.
    let resolver = resolver::GuardedResolver::new(list(&["**.example.com"]));
    let refused = reqwest::dns::Resolve::resolve(&resolver, "localhost".parse().unwrap()).await;
    let error = refused.err().unwrap();
    assert!(
        error.to_string().contains("resolves to 127.0.0.1")
            || error.to_string().contains("resolves to ::1"),
        "{error}"
    );
}
