package io.shardwise.sample.clinic;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The pages as a browser uses them: forms, post/redirect/get, the search. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ClinicWebTest {
  private static final Pattern VISIT_LINK = Pattern.compile("/owners/(\\d+)/pets/(\\d+)/visits/new");

  @LocalServerPort int port;

  @Test
  void aNewOwnerIsShownAfterTheRedirect() throws Exception {
    Browser browser = new Browser(port);
    HttpResponse<String> posted = browser.post("/owners/new", "firstName", "Grace", "lastName", "Hopper",
        "city", "Arlington", "telephone", "555-0199");
    assertThat(posted.headers().firstValue("Location")).hasValueSatisfying(l -> assertThat(l).matches(".*/owners/\\d+"));
    HttpResponse<String> shown = browser.follow(posted);
    assertThat(shown.statusCode()).isEqualTo(200);
    assertThat(shown.body()).contains("Grace Hopper", "Arlington");
  }

  @Test
  void aFormWithoutALastNameIsShownAgain() throws Exception {
    HttpResponse<String> posted = new Browser(port).post("/owners/new", "firstName", "Nameless", "lastName", " ");
    assertThat(posted.statusCode()).isEqualTo(200);
    assertThat(posted.body()).contains("is required");
  }

  @Test
  void petsAndVisitsAreAddedThroughTheirForms() throws Exception {
    Browser browser = new Browser(port);
    String owner = browser.post("/owners/new", "firstName", "Alan", "lastName", "Turing").headers()
        .firstValue("Location").orElseThrow().replaceAll(".*/owners/", "");
    assertThat(browser.get("/owners/" + owner + "/pets/new").body()).contains("lizard");

    HttpResponse<String> withPet = browser.follow(browser.post("/owners/" + owner + "/pets/new",
        "name", "Enigma", "birthDate", "2021-06-23", "kind", "2"));
    assertThat(withPet.body()).contains("Enigma", "cat", "2021-06-23");

    Matcher link = VISIT_LINK.matcher(withPet.body());
    assertThat(link.find()).isTrue();
    HttpResponse<String> withVisit = browser.follow(browser.post(link.group(), "date", "2025-01-15",
        "description", "claws trimmed"));
    assertThat(withVisit.body()).contains("Enigma", "2025-01-15", "claws trimmed");

    HttpResponse<String> edited = browser.follow(browser.post("/owners/" + owner + "/edit", "firstName", "Alan",
        "lastName", "Turing", "city", "Wilmslow", "telephone", "555-0154"));
    assertThat(edited.body()).contains("Wilmslow", "Enigma", "claws trimmed");
  }

  @Test
  void theSearchGoesPageByPage() throws Exception {
    Browser browser = new Browser(port);
    String first = browser.get("/owners?lastName=B").body();
    assertThat(names(first)).containsExactly("Hugo Baker", "Lia Barros", "Jonas Bauer", "Anke Becker", "Paolo Bianchi");
    assertThat(first).contains("<span id=\"total\">7</span>");
    assertThat(names(browser.get("/owners?lastName=B&page=1").body())).containsExactly("Ruth Blum", "Nils Brandt");
  }

  @Test
  void theVetsPageListsTheirSpecialties() throws Exception {
    assertThat(new Browser(port).get("/vets").body()).contains("Tomas Lindqvist", "radiology, surgery");
  }

  @Test
  void anUnknownOwnerIsNotFound() throws Exception {
    assertThat(new Browser(port).get("/owners/99").statusCode()).isEqualTo(404);
  }

  static List<String> names(String page) {
    Matcher m = Pattern.compile("<a href=\"/owners/\\d+\">([^<]+)</a>").matcher(page);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
