package io.shardwise.hibernate.scatter;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;
import java.time.LocalDate;

/** A parcel of a sender, with values of every kind a scalar part returns: enums by name and by ordinal, dates, decimals. */
@Entity
@Table(name = "parcel")
public class Parcel {
  enum State { LABELLED, IN_TRANSIT, DELIVERED }

  enum Size { SMALL, MEDIUM, LARGE }

  @Id
  private Long id;

  @ShardKey
  @Column(name = "sender_id")
  private Long senderId;

  @Enumerated(EnumType.STRING)
  private State state;

  @Enumerated(EnumType.ORDINAL)
  private Size size;

  @Column(precision = 8, scale = 3)
  private BigDecimal weight;

  private LocalDate sentOn;

  private boolean fragile;

  protected Parcel() {}

  Parcel(long id, long senderId, State state, Size size, BigDecimal weight, LocalDate sentOn, boolean fragile) {
    this.id = id;
    this.senderId = senderId;
    this.state = state;
    this.size = size;
    this.weight = weight;
    this.sentOn = sentOn;
    this.fragile = fragile;
  }
}
