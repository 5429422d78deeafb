package io.shardwise.sample.clinic;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** What a user's browser does with the clinic's pages: keeps its cookies, posts forms, follows redirects when asked. */
final class Browser {
  private final HttpClient http;
  private final URI base;

  Browser(int port) {
    this(port, true);
  }

  Browser(int port, boolean keepsCookies) {
    HttpClient.Builder builder = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER);
    this.http = (keepsCookies ? builder.cookieHandler(new CookieManager()) : builder).build();
    this.base = URI.create("http://localhost:" + port);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(base.resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Posts a form given as name, value, name, value, ... */
  HttpResponse<String> post(String path, String... fields) throws IOException, InterruptedException {
    String form = Stream.iterate(0, i -> i < fields.length, i -> i + 2)
        .map(i -> fields[i] + "=" + URLEncoder.encode(fields[i + 1], StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
    return http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The page a redirect points to. */
  HttpResponse<String> follow(HttpResponse<String> redirect) throws IOException, InterruptedException {
    if (redirect.statusCode() != 302) {
      throw new AssertionError("expected a redirect, got " + redirect.statusCode() + ": " + redirect.body());
    }
    return get(URI.create(redirect.headers().firstValue("Location").orElseThrow()).getPath());
  }
}
