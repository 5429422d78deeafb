package io.shardwise.sample.clinic;

import java.util.Locale;
import org.springframework.format.Formatter;
import org.springframework.stereotype.Component;

/** A pet kind in a form is its id. */
@Component
public class PetKindFormatter implements Formatter<PetKind> {
  private final Clinic clinic;

  public PetKindFormatter(Clinic clinic) {
    this.clinic = clinic;
  }

  @Override
  public String print(PetKind kind, Locale locale) {
    return String.valueOf(kind.getId());
  }

  @Override
  public PetKind parse(String text, Locale locale) {
    return clinic.kinds().stream().filter(k -> k.getId().toString().equals(text)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("No pet kind " + text));
  }
}
