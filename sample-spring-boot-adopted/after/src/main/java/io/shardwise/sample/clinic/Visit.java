package io.shardwise.sample.clinic;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;
import java.time.LocalDate;
import org.springframework.format.annotation.DateTimeFormat;

@Entity
@Table(name = "visits")
@CoLocated(with = Pet.class, listedIn = "visits")
public class Visit extends BaseEntity {
  @ShardKey
  @Column(name = "owner_id")
  private Integer ownerId;

  @Column(name = "visit_date")
  @DateTimeFormat(iso = DateTimeFormat.ISO.DATE)
  private LocalDate date = LocalDate.now();

  private String description;

  public LocalDate getDate() {
    return date;
  }

  public void setDate(LocalDate date) {
    this.date = date;
  }

  public String getDescription() {
    return description;
  }

  public void setDescription(String description) {
    this.description = description;
  }
}
