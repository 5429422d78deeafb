package io.shardwise.advisor.household;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Held by its household's list only: no association back. */
@Entity
@Table(name = "residents")
public class Resident {
  @Id Long id;
  String name;
}
